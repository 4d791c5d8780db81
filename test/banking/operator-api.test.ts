// The operator HTTP API (src/server/operator-api.ts): `POST /operator/import` with the bearer token
// from operatorTokenFile, for scripts; without the setting the prefix does not exist.
import { afterAll, describe, expect, test } from "bun:test";
import { ConfigError } from "../../src/config/config.ts";
import { randomBase64Url } from "../../src/crypto/tokens.ts";
import { createApp } from "../../src/server/app.ts";
import validFixture from "../fixtures/import/valid.json" with { type: "json" };
import { startTestServer, type TestServer } from "../support/server.ts";
import { createTestServices } from "../support/services.ts";
import { writeTokenFile } from "../support/token-file.ts";
import { insertServiceAccount, tableContents } from "./helpers.ts";

const token = randomBase64Url(32);
const services = await createTestServices({
  config: { operatorTokenFile: writeTokenFile(token).path },
});
const accountId = await insertServiceAccount(services);
const server: TestServer = startTestServer(services);
afterAll(() => server.stop());

function importRequest(headers: Record<string, string>, account = accountId) {
  return fetch(`${server.baseUrl}/operator/import?account=${account}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify(validFixture),
  });
}

describe("operator API", () => {
  test("without the token, or with a wrong one, it is 401 not_authenticated and nothing is written", async () => {
    const attempts: Record<string, string>[] = [
      {},
      { Authorization: `Bearer ${randomBase64Url(32)}` },
      { Authorization: token },
    ];
    for (const headers of attempts) {
      const response = await importRequest(headers);
      expect(response.status).toBe(401);
      expect(response.headers.get("WWW-Authenticate")).toContain("Bearer");
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("not_authenticated");
      expect(body.error.message).toContain("operatorTokenFile");
    }
    expect((await tableContents(services)).connections).toHaveLength(0);
  });

  test("with the token it imports the same JSON as svc import and answers its summary; again, nothing changes", async () => {
    const auth = { Authorization: `Bearer ${token}` };
    const first = await importRequest(auth);
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({
      service_account_id: accountId,
      new_transactions: 4,
      events_raised: 6,
    });
    const again = await importRequest(auth);
    expect(await again.json()).toMatchObject({ new_transactions: 0, events_raised: 0 });
  });

  test("the token opens only /operator: portal routes still need a session, unknown paths are 404", async () => {
    const portalPath = await fetch(`${server.baseUrl}/portal/api/operator/settings`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(portalPath.status).toBe(401);
    const unknown = await fetch(`${server.baseUrl}/operator/unknown`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(unknown.status).toBe(404);
  });

  test("without operatorTokenFile /operator does not exist (404 not_found)", async () => {
    const plain = createApp(await createTestServices());
    const response = await plain.request(`/operator/import?account=${accountId}`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
      body: "{}",
    });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("not_found");
  });

  test("a token file with a short or spaced token stops the app with a config error", async () => {
    for (const bad of ["short", `${"a".repeat(20)} ${"b".repeat(20)}`]) {
      const config = { operatorTokenFile: writeTokenFile(bad).path };
      const services = await createTestServices({ config });
      try {
        expect(() => createApp(services)).toThrow(ConfigError);
        expect(() => createApp(services)).toThrow(/operatorTokenFile .*at least 32/);
      } finally {
        await services.database.close();
      }
    }
  });
});
