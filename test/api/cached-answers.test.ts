// The cached-answer lane (src/api/middleware/answer-lane.ts): a /v1 GET whose answer is remembered is
// answered before the router, synchronously, with exactly what the router would answer; every
// other request (and every refusal) goes to the router. `createHttpApp().fetch` returns a
// Response for a lane answer and a Promise for a router answer, which is how these tests tell
// them apart.
import { afterAll, describe, expect, test } from "bun:test";
import { createServiceAccount } from "../../src/accounts/service-accounts.ts";
import { createApiKey, revokeApiKey } from "../../src/keys/api-keys.ts";
import { createLogger } from "../../src/log/log.ts";
import { createHttpApp } from "../../src/server/app.ts";
import { seedConnection } from "../support/bank-fixtures.ts";
import { createFakeClock } from "../support/fake-clock.ts";
import { parsePrometheus, sampleValue } from "../support/prometheus.ts";
import { createTestServices } from "../support/services.ts";

const clock = createFakeClock();
let lines: Record<string, unknown>[] = [];
const services = await createTestServices({
  clock,
  config: { apiRateLimitPerMinute: 5 },
  log: createLogger({ write: (line) => lines.push(JSON.parse(line)) }),
});
afterAll(async () => {
  await services.database.close();
});
const http = createHttpApp(services);

async function tenant(email: string) {
  const created = await createServiceAccount(services.db, clock, {
    email,
    password: "correct horse battery staple",
  });
  const key = await createApiKey(services.db, clock, { serviceAccountId: created.account.id });
  const bank = await seedConnection(services.db, clock, created.account.id);
  return { key: key.key, keyId: key.apiKey.id, bank };
}

const base = "http://svc.test";
function get(path: string, key: string | null, init: RequestInit = {}) {
  const headers: Record<string, string> = key === null ? {} : { Authorization: `Bearer ${key}` };
  return http.fetch(new Request(`${base}${path}`, { ...init, headers }));
}

/** Answered by the router. */
async function fromRouter(answer: Response | Promise<Response>): Promise<Response> {
  const response = await answer;
  expect(http.fromCache(response)).toBe(false);
  return response;
}

/** A URL answered for the first time: by the router, and not remembered yet. */
async function askedOnce(answer: Response | Promise<Response>): Promise<Response> {
  return fromRouter(answer);
}

/** Answered by the lane (a remembered answer, before the router). */
async function fromLane(answer: Response | Promise<Response>): Promise<Response> {
  const response = await answer;
  expect(http.fromCache(response)).toBe(true);
  return response;
}

const perRequest = new Set(["svc-request-id", "ratelimit-remaining", "ratelimit-reset"]);
function stableHeaders(response: Response): [string, string][] {
  return [...response.headers].filter(([name]) => !perRequest.has(name));
}

describe("a remembered answer", () => {
  test("is remembered from a URL's second answer on: a URL asked once is not copied", async () => {
    const a = await tenant("lane-second@example.com");
    const path = `/v1/accounts/${a.bank.accountIds[0]}/transactions?limit=7`;
    expect((await askedOnce(get(path, a.key))).status).toBe(200);
    expect((await fromRouter(get(`${path}&include_pending=true`, a.key))).status).toBe(200);
    expect((await fromRouter(get(path, a.key))).status).toBe(200);
    expect((await fromLane(get(path, a.key))).status).toBe(200);
  });

  test("is the router's answer again: same status, body and headers; its own request id and rate-limit state", async () => {
    const a = await tenant("lane-same@example.com");
    const path = `/v1/accounts/${a.bank.accountIds[0]}/transactions?include_pending=true`;
    await askedOnce(get(path, a.key));
    const fresh = await fromRouter(get(path, a.key));
    expect(fresh.status).toBe(200);
    const freshBody = await fresh.text();
    const cached = await fromLane(get(path, a.key));
    expect(cached.status).toBe(200);
    expect(await cached.text()).toBe(freshBody);
    expect(stableHeaders(cached)).toEqual(stableHeaders(fresh));
    expect(cached.headers.get("Cache-Control")).toBe("no-store");
    expect(cached.headers.get("Svc-Request-Id")).toMatch(/^req_/);
    expect(cached.headers.get("Svc-Request-Id")).not.toBe(fresh.headers.get("Svc-Request-Id"));
    expect(Number(fresh.headers.get("RateLimit-Remaining"))).toBe(3);
    expect(Number(cached.headers.get("RateLimit-Remaining"))).toBe(2);
    expect(Number(cached.headers.get("RateLimit-Reset"))).toBeGreaterThan(0);
  });

  test("is served whole again and again (the body is shared, never used up)", async () => {
    const a = await tenant("lane-again@example.com");
    const path = `/v1/accounts/${a.bank.accountIds[0]}`;
    await askedOnce(get(path, a.key));
    const freshBody = await (await fromRouter(get(path, a.key))).text();
    for (let i = 0; i < 3; i++)
      expect(await (await fromLane(get(path, a.key))).text()).toBe(freshBody);
  });

  test("counts against the key's rate limit; over it, the router answers 429 with Retry-After", async () => {
    const a = await tenant("lane-limit@example.com");
    const path = "/v1/accounts";
    expect((await askedOnce(get(path, a.key))).status).toBe(200);
    expect((await fromRouter(get(path, a.key))).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await fromLane(get(path, a.key))).status).toBe(200);
    const refused = await fromRouter(get(path, a.key));
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("rate_limited");
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(refused.headers.get("RateLimit-Remaining")).toBe("0");
  });

  test("is never served to another account's key, without a key, or with a revoked key", async () => {
    const a = await tenant("lane-owner@example.com");
    const b = await tenant("lane-other@example.com");
    const path = `/v1/accounts/${a.bank.accountIds[0]}/balance`;
    expect((await askedOnce(get(path, a.key))).status).toBe(200);
    expect((await fromRouter(get(path, a.key))).status).toBe(200);
    expect((await fromLane(get(path, a.key))).status).toBe(200);
    expect((await fromRouter(get(path, b.key))).status).toBe(404);
    const anonymous = await fromRouter(get(path, null));
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("WWW-Authenticate")).toContain("Bearer");
    await revokeApiKey(services.db, clock, a.keyId);
    const revoked = await fromRouter(get(path, a.key));
    expect(revoked.status).toBe(401);
    expect(((await revoked.json()) as { error: { code: string } }).error.code).toBe(
      "invalid_api_key",
    );
  });

  test("is served only on the UTC day it was read: the default transactions window ends today", async () => {
    const a = await tenant("lane-day@example.com");
    const path = `/v1/accounts/${a.bank.accountIds[0]}/transactions`;
    clock.set("2026-01-20T23:59:59.000Z");
    expect((await askedOnce(get(path, a.key))).status).toBe(200);
    expect((await fromRouter(get(path, a.key))).status).toBe(200);
    expect((await fromLane(get(path, a.key))).status).toBe(200);
    clock.set("2026-01-21T00:00:01.000Z");
    expect((await askedOnce(get(path, a.key))).status).toBe(200);
    expect((await fromRouter(get(path, a.key))).status).toBe(200);
    expect((await fromLane(get(path, a.key))).status).toBe(200);
  });

  test("answers GET only: HEAD and other methods go to the router", async () => {
    const a = await tenant("lane-methods@example.com");
    const path = "/v1/connections";
    expect((await fromRouter(get(path, a.key))).status).toBe(200);
    expect((await fromRouter(get(path, a.key, { method: "HEAD" }))).status).toBe(200);
    expect((await fromRouter(get(path, a.key, { method: "POST" }))).status).toBe(405);
  });

  test("leaves the same access-log line and metrics as a router answer", async () => {
    const a = await tenant("lane-log@example.com");
    const path = `/v1/accounts/${a.bank.accountIds[1]}`;
    await askedOnce(get(path, a.key));
    lines = [];
    const fresh = await fromRouter(get(path, a.key));
    const cached = await fromLane(get(path, a.key));
    const logged = lines.filter((line) => line.msg === "request");
    expect(logged).toHaveLength(2);
    for (const [line, response] of [
      [logged[0], fresh],
      [logged[1], cached],
    ] as const) {
      expect(line).toMatchObject({
        level: "info",
        method: "GET",
        route: "/v1/accounts/:account_id",
        status: 200,
        requestId: response.headers.get("Svc-Request-Id"),
        keyId: a.keyId,
      });
      expect(typeof line?.durationMs).toBe("number");
    }
    expect(Object.keys(logged[1] as object)).toEqual(Object.keys(logged[0] as object));
    const samples = parsePrometheus(await services.metrics.registry.metrics());
    const labels = { method: "GET", route: "/v1/accounts/:account_id", status: "200" };
    expect(sampleValue(samples, "svc_http_requests_total", labels)).toBeGreaterThanOrEqual(2);
  });
});
