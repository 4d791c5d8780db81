// Request bodies are bounded before they are read (src/http/body-limit.ts): 64 KiB for the
// portal's JSON routes, sign-in included (no account needed to send one), 413
// payload_too_large in the error envelope, whether the size is declared (Content-Length) or the
// body arrives chunked; the operator import keeps its own 50 MiB. The compiled binary's suite
// (test/e2e/limits-binary.test.ts) sends 120 MiB.
import { afterAll, describe, expect, test } from "bun:test";
import { like } from "drizzle-orm";
import { maxJsonBodyBytes } from "../../src/http/body-limit.ts";
import validFixture from "../fixtures/import/valid.json" with { type: "json" };
import { portalClient, signedInOwner } from "../support/portal.ts";
import { startTestServer } from "../support/server.ts";
import { createTestServices } from "../support/services.ts";

const services = await createTestServices();
const server = startTestServer(services);
afterAll(async () => {
  await server.stop();
  await services.database.close();
});

const tooBig = JSON.stringify({
  email: "nobody@example.com",
  password: "x".repeat(maxJsonBodyBytes),
});

async function expectTooLarge(response: Response) {
  expect(response.status).toBe(413);
  expect(await response.json()).toEqual({
    error: {
      code: "payload_too_large",
      message: `The request body may be at most ${maxJsonBodyBytes} bytes.`,
    },
  });
}

/** A body whose size is not declared: sent in 16 KiB chunks (Transfer-Encoding: chunked). */
function chunked(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(offset, offset + 16_384));
      offset += 16_384;
    },
  });
}

describe("request body limits", () => {
  test("a sign-in body over 64 KiB with Content-Length is 413 payload_too_large", async () => {
    await expectTooLarge(
      await portalClient(server.baseUrl).request("POST", "/session", undefined, {}, tooBig),
    );
  });

  test("a chunked sign-in body is refused once it passes 64 KiB", async () => {
    const response = await fetch(`${server.baseUrl}/portal/api/session`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: server.baseUrl },
      body: chunked(tooBig),
    });
    await expectTooLarge(response);
  });

  test("a chunked sign-in under the limit still counts against the client's address (the peer survives the body being read ahead)", async () => {
    const attempt = JSON.stringify({ email: "chunked@example.com", password: "wrong password" });
    const response = await fetch(`${server.baseUrl}/portal/api/session`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: server.baseUrl },
      body: chunked(attempt),
    });
    expect(response.status).toBe(401);
    const { rateLimitCounters } = services.db.t;
    const keys = await services.db
      .select({ key: rateLimitCounters.key })
      .from(rateLimitCounters)
      .where(like(rateLimitCounters.key, "sign-in:address:%"));
    expect(keys.map((row) => row.key)).toEqual(["sign-in:address:127.0.0.1"]);
  });

  test("a signed-in owner's JSON over 64 KiB is 413, at the limit it is read", async () => {
    const { client } = await signedInOwner(services, server.baseUrl);
    await expectTooLarge(
      await client.request(
        "POST",
        "/keys",
        undefined,
        {},
        JSON.stringify({ name: "x".repeat(maxJsonBodyBytes) }),
      ),
    );
    const padded = JSON.stringify({ name: "k" });
    const atLimit = padded + " ".repeat(maxJsonBodyBytes - padded.length);
    expect((await client.request("POST", "/keys", undefined, {}, atLimit)).status).toBe(201);
  });

  test("the operator import keeps its own larger limit: a 200 KiB document is read", async () => {
    const operator = await signedInOwner(services, server.baseUrl, { isOperator: true });
    const account = await signedInOwner(services, server.baseUrl);
    const document = JSON.stringify(validFixture);
    const large = document + " ".repeat(200 * 1024);
    const response = await operator.client.request(
      "POST",
      `/operator/import?account=${account.accountId}`,
      undefined,
      {},
      large,
    );
    expect(response.status).toBe(200);
  });
});
