// The read lane (src/api/middleware/read-lane.ts): a /v1 read no remembered answer serves is answered
// before the router, with exactly what the router alone answers (status, body, headers, access
// log line); everything the lane leaves (a refused parameter, a failed read, a refusal) is the
// router's answer, counted once against the rate limit.
import { afterAll, describe, expect, test } from "bun:test";
import { createServiceAccount } from "../../src/accounts/service-accounts.ts";
import { createApiKey, revokeApiKey } from "../../src/keys/api-keys.ts";
import { createLogger } from "../../src/log/log.ts";
import { createHttpApp } from "../../src/server/app.ts";
import {
  generatedTransactions,
  insertTransactions,
  seedConnection,
} from "../support/bank-fixtures.ts";
import { createFakeClock } from "../support/fake-clock.ts";
import { createTestServices } from "../support/services.ts";

const clock = createFakeClock();
const lines: Record<string, unknown>[] = [];
const services = await createTestServices({
  clock,
  config: { apiRateLimitPerMinute: 1_000 },
  log: createLogger({ write: (line) => lines.push(JSON.parse(line)) }),
});
afterAll(async () => {
  await services.database.close();
});

/** The listener's entry (lanes first), counting the requests that reach its router. */
const http = createHttpApp(services);
let routed = 0;
const routerFetch = http.app.fetch;
http.app.fetch = (request, ...rest) => {
  routed += 1;
  return routerFetch(request, ...rest);
};
/** The router alone, in an app of its own (its own answer cache and limiter). */
const routerOnly = createHttpApp(services).app;

async function tenant(email: string) {
  const created = await createServiceAccount(services.db, clock, {
    email,
    password: "correct horse battery staple",
  });
  const key = await createApiKey(services.db, clock, { serviceAccountId: created.account.id });
  const bank = await seedConnection(services.db, clock, created.account.id);
  const today = clock.now().toISOString().slice(0, 10);
  await insertTransactions(
    services.db,
    clock,
    bank.accountIds[0] as string,
    generatedTransactions(12, { lastDate: today }),
  );
  return { key: key.key, keyId: key.apiKey.id, bank };
}

const base = "http://svc.test";
const request = (path: string, key: string | null, headers: Record<string, string> = {}) =>
  new Request(`${base}${path}`, {
    headers: key === null ? headers : { ...headers, Authorization: `Bearer ${key}` },
  });

const perRequest = new Set(["svc-request-id", "ratelimit-remaining", "ratelimit-reset"]);
const stableHeaders = (response: Response) =>
  [...response.headers].filter(([name]) => !perRequest.has(name));
/** The access-log line of the last request, without what differs per request. */
const lastLogLine = () => {
  const { durationMs: _duration, requestId: _id, time: _time, ...rest } = lines.at(-1) ?? {};
  return rest;
};

/** Asks both; returns whether the listener's router was used, after checking the answers agree. */
async function compare(path: string, key: string | null, headers: Record<string, string> = {}) {
  const before = routed;
  const viaLanes = await http.fetch(request(path, key, headers));
  const laneBody = await viaLanes.text();
  const laneLine = lastLogLine();
  const routerAnswer = await routerOnly.fetch(request(path, key, headers));
  const routerBody = await routerAnswer.text();
  expect({ path, status: viaLanes.status }).toEqual({ path, status: routerAnswer.status });
  expect(laneBody).toBe(routerBody);
  expect(stableHeaders(viaLanes)).toEqual(stableHeaders(routerAnswer));
  expect(laneLine).toEqual(lastLogLine());
  return { routed: routed > before, response: viaLanes, body: laneBody };
}

const a = await tenant("read-lane-a@example.com");
const b = await tenant("read-lane-b@example.com");
const account = a.bank.accountIds[0] as string;

describe("the read lane answers every /v1 read as the router alone does", () => {
  test("each read route's first answer comes from the lane, byte for byte the router's", async () => {
    const firstPage = await compare(`/v1/accounts/${account}/transactions?limit=5`, a.key);
    const cursor = (JSON.parse(firstPage.body) as { next_cursor: string }).next_cursor;
    const paths = [
      "/v1/accounts",
      "/v1/accounts?limit=1",
      `/v1/accounts/${account}`,
      `/v1/accounts/${account}/balance`,
      `/v1/accounts/${account}/transactions?include_pending=1&limit=3`,
      `/v1/accounts/${account}/transactions?cursor=${cursor}`,
      `/v1/accounts/${account}/transactions/changes?limit=4`,
      "/v1/connections",
      `/v1/connections/${a.bank.connectionId}`,
      "/v1/events?limit=2",
    ];
    expect(firstPage.routed).toBe(false);
    for (const path of paths) {
      const answer = await compare(path, a.key);
      expect({ path, status: answer.response.status, routed: answer.routed }).toEqual({
        path,
        status: 200,
        routed: false,
      });
      expect(answer.response.headers.get("ETag")).toMatch(/^"[0-9a-f]{32}"$/);
    }
  });

  test("a matching If-None-Match is answered 304 by the lane, with the router's headers", async () => {
    const path = `/v1/accounts/${account}/transactions?limit=2&include_pending=true`;
    const first = await compare(path, a.key);
    const etag = first.response.headers.get("ETag") as string;
    const unchanged = await compare(path, a.key, { "If-None-Match": `W/${etag}, "other"` });
    expect(unchanged.response.status).toBe(304);
    expect(unchanged.body).toBe("");
  });

  test("what the lane does not take plainly is the router's answer: bad parameters, other paths, refusals", async () => {
    const refused = [
      [`/v1/accounts/${account}/transactions?limit=0`, a.key],
      [`/v1/accounts/${account}/transactions?limit=1&limit=2`, a.key],
      [`/v1/accounts/${account}/transactions?include_pendng=true`, a.key],
      [`/v1/accounts/${account}/transactions?=1`, a.key],
      [`/v1/accounts/${account}/transactions?cursor=not-ours`, a.key],
      [`/v1/accounts/${account}/transactions?from=2026-13-01`, a.key],
      ["/v1/accounts/not-a-uuid", a.key],
      ["/v1/accounts/", a.key],
      ["/v1/account", a.key],
      [`/v1/accounts/${account}/transactions`, b.key],
      [`/v1/accounts/${account}?limit=1`, a.key],
      ["/v1/events/01936f1e-8d9b-7c7e-9a51-0b6d2e7f4a10", a.key],
      ["/v1/accounts", null],
      ["/v1/accounts", "svk_malformed"],
    ] as const;
    for (const [path, key] of refused) {
      const answer = await compare(path, key);
      expect({ path, ok: answer.response.ok }).toEqual({ path, ok: false });
      expect(JSON.parse(answer.body).error.code).toMatch(/^[a-z_]+$/);
    }
  });

  test("a read that fails in the lane counts once against the rate limit, as in the router", async () => {
    const c = await tenant("read-lane-count@example.com");
    const remaining = async (path: string) => {
      const response = await http.fetch(request(path, c.key));
      await response.arrayBuffer();
      return {
        status: response.status,
        remaining: Number(response.headers.get("RateLimit-Remaining")),
      };
    };
    const first = await remaining("/v1/accounts?limit=1");
    // Another account's id: the lane's read fails (404), the router answers it.
    const before = routed;
    const missing = await remaining(`/v1/accounts/${account}/balance`);
    expect(routed).toBe(before + 1);
    const last = await remaining("/v1/accounts?limit=2");
    expect([first.status, missing.status, last.status]).toEqual([200, 404, 200]);
    expect([missing.remaining, last.remaining]).toEqual([first.remaining - 1, first.remaining - 2]);
  });

  test("a revoked key is refused on the very next request", async () => {
    const d = await tenant("read-lane-revoked@example.com");
    const path = (limit: number) =>
      `/v1/accounts/${d.bank.accountIds[0]}/transactions?limit=${limit}`;
    expect((await http.fetch(request(path(1), d.key))).status).toBe(200);
    await revokeApiKey(services.db, clock, d.keyId);
    const refused = await http.fetch(request(path(2), d.key));
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe(
      "invalid_api_key",
    );
  });
});
