// The access log: one JSON line per request with method, route pattern, status,
// duration and request id (plus the API key's id on /v1); never the query string, a header,
// the key or a raw id from the path. Probes and scrapes only at debug level.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createApiKey } from "../../src/keys/api-keys.ts";
import { createLogger, type LogLevel } from "../../src/log/log.ts";
import { createApp } from "../../src/server/app.ts";
import type { Services } from "../../src/server/services.ts";
import { insertServiceAccount } from "../banking/helpers.ts";
import { signedInOwner } from "../support/portal.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { createTestServices } from "../support/services.ts";

let lines: Record<string, unknown>[] = [];
let services: Services;
let server: TestServer;
let key: string;
let keyId: string;

async function startWithLevel(level: LogLevel) {
  const log = createLogger({ level, write: (line) => lines.push(JSON.parse(line)) });
  services = await createTestServices({ log });
  server = startTestServer(services);
  const created = await createApiKey(services.db, services.clock, {
    serviceAccountId: await insertServiceAccount(services),
  });
  key = created.key;
  keyId = created.apiKey.id;
}

const requestLines = () => lines.filter((line) => line.msg === "request");

describe("access log at info level", () => {
  beforeAll(() => startWithLevel("info"));
  afterAll(async () => {
    await server.stop();
    await services.database.close();
  });

  test("one line per request: method, route pattern, status, duration, request id and key id; no query, header or key", async () => {
    lines = [];
    const accountId = "0d4b7a52-3f5c-4c1e-8f8e-2a4c6b8d0e1f";
    const response = await fetch(
      `${server.baseUrl}/v1/accounts/${accountId}/transactions?from=2026-01-01&cursor=c3ZrXw`,
      { headers: { Authorization: `Bearer ${key}` } },
    );
    expect(response.status).toBe(400);
    const logged = requestLines();
    expect(logged).toHaveLength(1);
    const line = logged[0] as Record<string, unknown>;
    expect(line).toMatchObject({
      level: "info",
      method: "GET",
      route: "/v1/accounts/:account_id/transactions",
      status: 400,
      requestId: response.headers.get("Svc-Request-Id"),
      keyId,
    });
    expect(typeof line.durationMs).toBe("number");
    const text = JSON.stringify(line);
    for (const hidden of [accountId, "cursor", "2026-01-01", key, key.slice(13), "Bearer"]) {
      expect(text).not.toContain(hidden);
    }
  });

  test("requests of one kind (route, status, key) each get a line with their own request id", async () => {
    lines = [];
    const answers = [];
    for (let i = 0; i < 3; i++) {
      answers.push(
        await fetch(`${server.baseUrl}/v1/accounts`, {
          headers: { Authorization: `Bearer ${key}` },
        }),
      );
    }
    const logged = requestLines();
    expect(logged.map((line) => line.requestId)).toEqual(
      answers.map((answer) => answer.headers.get("Svc-Request-Id")),
    );
    for (const line of logged)
      expect(line).toMatchObject({ route: "/v1/accounts", status: 200, keyId });
  });

  test("a request without a key is logged without a key id; an unknown path as route 'unmatched'", async () => {
    lines = [];
    await fetch(`${server.baseUrl}/v1/accounts`);
    await fetch(`${server.baseUrl}/no/such/svk_secretish/path`);
    const [first, second] = requestLines();
    expect(first).toMatchObject({ route: "/v1/accounts", status: 401 });
    expect(first).not.toHaveProperty("keyId");
    expect(second).toMatchObject({ route: "unmatched", status: 404 });
    expect(JSON.stringify(second)).not.toContain("svk_secretish");
  });

  test("a portal request is logged with the signed-in user's id, never the password or the session cookie", async () => {
    const { client, userId } = await signedInOwner(services, server.baseUrl);
    lines = [];
    expect((await client.request("GET", "/me")).status).toBe(200);
    expect(requestLines()).toEqual([
      expect.objectContaining({ route: "/portal/api/me", status: 200, userId }),
    ]);
    const cookieValue = (client.cookie ?? "").split("=")[1] as string;
    expect(cookieValue.length).toBeGreaterThan(20);
    expect(JSON.stringify(lines)).not.toContain(cookieValue);
  });

  test("a request that failed with a 500 is logged with status 500 and the same request id", async () => {
    lines = [];
    const app = createApp(services);
    app.get("/boom/:id", () => {
      throw new Error("kaboom");
    });
    const response = await app.request("/boom/42");
    expect(response.status).toBe(500);
    expect(requestLines()).toEqual([
      expect.objectContaining({
        route: "/boom/:id",
        status: 500,
        requestId: response.headers.get("Svc-Request-Id"),
      }),
    ]);
  });

  test("health probes and metrics scrapes are not logged at info level", async () => {
    lines = [];
    await fetch(`${server.baseUrl}/healthz`);
    await fetch(`${server.baseUrl}/readyz`);
    expect(requestLines()).toHaveLength(0);
  });
});

describe("access log at debug level", () => {
  beforeAll(() => startWithLevel("debug"));
  afterAll(async () => {
    await server.stop();
    await services.database.close();
  });

  test("health probes are logged at debug level", async () => {
    lines = [];
    const response = await fetch(`${server.baseUrl}/readyz`);
    expect(requestLines()).toEqual([
      expect.objectContaining({
        level: "debug",
        route: "/readyz",
        status: 200,
        requestId: response.headers.get("Svc-Request-Id"),
      }),
    ]);
  });
});
