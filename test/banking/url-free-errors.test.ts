// Spec 8 "Security": no error message carries a URL path or query, wherever the error comes from.
import { describe, expect, test } from "bun:test";
import { getConnection } from "../../src/banking/connections.ts";
import { enableBankingError } from "../../src/banking/providers/enable-banking/client.ts";
import { writeConnectionStatus } from "../../src/banking/status.ts";
import { insertConnection, setup } from "./helpers.ts";

describe("provider error messages name URLs by scheme and host only", () => {
  test("an Enable Banking refusal that quotes a URL keeps its host, drops its path and query", () => {
    const error = enableBankingError(
      {
        status: 400,
        headers: {},
        text: JSON.stringify({
          error: "WRONG_REDIRECT_URL",
          message:
            "redirect_url https://svc.example.com/connect/callback?state=s3cr3t is not allowed",
        }),
      },
      "authorisation",
      0,
    );
    expect(error.message).toContain("https://svc.example.com");
    expect(error.message).not.toContain("/connect/callback");
    expect(error.message).not.toContain("s3cr3t");
  });

  test("a connection's stored error never keeps a URL path, query or credentials", async () => {
    const s = await setup();
    const id = await insertConnection(s.services, s.accountId, "linked");
    await s.services.db.write(async (tx) =>
      writeConnectionStatus(
        tx,
        s.clock,
        await getConnection(tx, id),
        "error",
        "reading https://user:pass@bridge.example/simplefin/claim/TOKEN123?x=1 failed",
      ),
    );
    const row = await getConnection(s.services.db, id);
    expect(row.error).toBe("reading https://bridge.example failed");
  });
});
