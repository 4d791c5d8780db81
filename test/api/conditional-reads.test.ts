// Conditional reads (src/api/middleware/etag.ts): every /v1 GET answers a strong ETag of its exact
// body, and If-None-Match naming it is answered 304, by the router and by the cached-answer lane
// alike, only after the key, entitlement and rate-limit checks. Flag parameters take
// true/false/1/0.
import { afterAll, describe, expect, test } from "bun:test";
import { createServiceAccount, updateServiceAccount } from "../../src/accounts/service-accounts.ts";
import { entityTagOf } from "../../src/api/middleware/etag.ts";
import { createApiKey } from "../../src/keys/api-keys.ts";
import { createHttpApp } from "../../src/server/app.ts";
import { recordAccountEvents } from "../../src/webhooks/events/write.ts";
import { errorOf, startApiHarness, type Tenant } from "../support/api.ts";
import { insertTransactions, seedConnection } from "../support/bank-fixtures.ts";
import { createFakeClock } from "../support/fake-clock.ts";
import { documentChecker } from "../support/openapi.ts";
import { createTestServices } from "../support/services.ts";

const api = await startApiHarness({ config: { apiRateLimitPerMinute: 1000 } });
afterAll(() => api.stop());
const alice = await api.addTenant("etag-alice@example.com");
const accountId = alice.bank.accountIds[0] as string;
await insertTransactions(api.services.db, api.clock, accountId, [
  { bookingDate: "2026-01-14", status: "pending", merchantName: null, valueDate: null },
  { bookingDate: "2026-01-13", amount: "2500.00", counterpartyName: "Employer Ltd" },
]);
const [aliceEvent] = await api.services.db.write((tx) =>
  recordAccountEvents(tx, api.clock, [
    {
      serviceAccountId: alice.accountId,
      type: "account.balance.updated",
      data: { account_id: accountId, fetched_at: api.clock.now().toISOString() },
    },
  ]),
);
const document = (await (await api.get("/v1/openapi.json", null)).json()) as {
  paths: Record<string, Record<string, Record<string, unknown>>>;
};
// The event stream has no final body to tag: it is never conditional (and never remembered).
const routes = documentChecker(document)
  .operations()
  .filter((route) => route.path !== "/events/stream");

function concrete(pathTemplate: string, tenant: Tenant): string {
  return `/v1${pathTemplate}`
    .replace("{account_id}", tenant.bank.accountIds[0] as string)
    .replace("{connection_id}", tenant.bank.connectionId)
    .replace("{event_id}", String(aliceEvent?.eventId));
}

const strongTag = /^"[0-9a-f]{32}"$/;
/** The documented tag, computed here from the bytes received: xxHash3-64 then wyhash-64, hex. */
function expectedTag(body: ArrayBuffer): string {
  const hex = (value: bigint | number) => BigInt(value).toString(16).padStart(16, "0");
  return `"${hex(Bun.hash.xxHash3(body))}${hex(Bun.hash.wyhash(body))}"`;
}

describe("the entity tag", () => {
  test("a text body and its UTF-8 bytes have one tag (the route tags text, the middleware bytes)", () => {
    const text = '{"description":"Café Zürich — 50 € ✓ 日本"}';
    expect(entityTagOf(text)).toBe(entityTagOf(new TextEncoder().encode(text)));
    expect(entityTagOf(text)).toMatch(strongTag);
  });

  test("changing any one byte of a page changes the tag", () => {
    const page = new TextEncoder().encode(
      JSON.stringify({ data: Array(100).fill("x".repeat(300)) }),
    );
    const tags = new Set([entityTagOf(page)]);
    for (let index = 0; index < page.length; index += 97) {
      const changed = page.slice();
      changed[index] = (changed[index] as number) ^ 1;
      tags.add(entityTagOf(changed));
    }
    expect(tags.size).toBe(1 + Math.ceil(page.length / 97));
  });
});

describe("every /v1 GET route", () => {
  for (const route of routes) {
    describe(`${route.method.toUpperCase()} ${route.path}`, () => {
      test("answers a strong ETag: the quoted 128-bit fingerprint (xxHash3-64, wyhash-64) of the exact body bytes", async () => {
        const response = await api.get(concrete(route.path, alice), alice.key);
        expect(response.status).toBe(200);
        const etag = response.headers.get("ETag") as string;
        expect(etag).toMatch(strongTag);
        expect(etag).toBe(expectedTag(await response.arrayBuffer()));
      });

      test("answers 304 with no body to If-None-Match naming the tag, on first asking and from remembered answers", async () => {
        const path = concrete(route.path, alice);
        const etag = (await api.get(path, alice.key)).headers.get("ETag") as string;
        // Several rounds: the first answers come from the router, later ones from the lane.
        for (let round = 0; round < 4; round++) {
          const response = await api.get(path, alice.key, { "If-None-Match": etag });
          expect(response.status).toBe(304);
          expect(await response.text()).toBe("");
          expect(response.headers.get("ETag")).toBe(etag);
          expect(response.headers.get("Cache-Control")).toBe("no-store");
          expect(response.headers.get("Svc-Request-Id")).toBeTruthy();
          expect(response.headers.get("RateLimit-Remaining")).toBeTruthy();
          expect(response.headers.get("Content-Type")).toBeNull();
        }
      });

      test("documents the If-None-Match parameter, the ETag header and the 304", () => {
        const operation = document.paths[route.path]?.[route.method] as {
          parameters: { name: string; in: string }[];
          responses: Record<string, { headers: Record<string, unknown> }>;
        };
        expect(operation.parameters).toContainEqual(
          expect.objectContaining({ name: "If-None-Match", in: "header" }),
        );
        expect(Object.keys(operation.responses["200"]?.headers ?? {})).toContain("ETag");
        expect(Object.keys(operation.responses["304"]?.headers ?? {})).toContain("ETag");
      });
    });
  }
});

test("the event stream is never conditional: no ETag, and If-None-Match: * still opens it", async () => {
  const response = await api.get("/v1/events/stream", alice.key, { "If-None-Match": "*" });
  expect(response.status).toBe(200);
  expect(response.headers.get("Content-Type")).toStartWith("text/event-stream");
  expect(response.headers.get("ETag")).toBeNull();
  await response.body?.cancel();
});

describe("If-None-Match", () => {
  const path = `/v1/accounts/${accountId}/transactions?include_pending=true`;
  const tagOf = async () => (await api.get(path, alice.key)).headers.get("ETag") as string;

  test("matches a W/-prefixed tag, a tag inside a comma list, and *", async () => {
    const etag = await tagOf();
    for (const header of [`W/${etag}`, `"other", ${etag}`, `"a",W/${etag} , "b"`, "*", " * "]) {
      expect((await api.get(path, alice.key, { "If-None-Match": header })).status).toBe(304);
    }
  });

  test("a tag that does not match, or a malformed header, gets the full answer", async () => {
    const etag = await tagOf();
    for (const header of ['"not-it"', etag.slice(1, -1), `${etag.slice(0, -2)}"`, "", "W/"]) {
      const response = await api.get(path, alice.key, { "If-None-Match": header });
      expect(response.status).toBe(200);
      expect(response.headers.get("ETag")).toBe(etag);
    }
  });

  test("a change of the data changes the tag: the old tag then gets the new answer", async () => {
    const before = await tagOf();
    await insertTransactions(api.services.db, api.clock, accountId, [
      { bookingDate: "2026-01-12" },
    ]);
    const response = await api.get(path, alice.key, { "If-None-Match": before });
    expect(response.status).toBe(200);
    expect(response.headers.get("ETag")).not.toBe(before);
  });

  test("equal bodies share one tag: include_pending=1 and include_pending=true answer the same bytes", async () => {
    const viaWord = await api.get(path, alice.key);
    const viaDigit = await api.get(path.replace("=true", "=1"), alice.key);
    expect(await viaDigit.text()).toBe(await viaWord.text());
    expect(viaDigit.headers.get("ETag")).toBe(viaWord.headers.get("ETag"));
  });

  test("errors carry no ETag, and a matching tag never turns an error into a 304", async () => {
    const etag = await tagOf();
    const refusals = [
      await api.get(path, null, { "If-None-Match": "*" }),
      await api.get(path, `${alice.key}x`, { "If-None-Match": etag }),
      await api.get(`${path}&limit=0`, alice.key, { "If-None-Match": "*" }),
      await api.get(`/v1/accounts/${crypto.randomUUID()}`, alice.key, { "If-None-Match": "*" }),
    ];
    expect(refusals.map((r) => r.status)).toEqual([401, 401, 400, 404]);
    for (const response of refusals) {
      expect(response.headers.get("ETag")).toBeNull();
      await errorOf(response);
    }
  });

  test("an account that is not entitled is refused before any 304", async () => {
    const lapsed = await api.addTenant("etag-lapsed@example.com");
    const lapsedPath = `/v1/accounts/${lapsed.bank.accountIds[0]}`;
    const etag = (await api.get(lapsedPath, lapsed.key)).headers.get("ETag") as string;
    await updateServiceAccount(api.services.db, api.clock, lapsed.accountId, {
      status: "lapsed",
      subscriptionStatus: "canceled",
    });
    const response = await api.get(lapsedPath, lapsed.key, { "If-None-Match": etag });
    expect(response.status).toBe(403);
    expect(response.headers.get("ETag")).toBeNull();
  });
});

describe("the public pages", () => {
  for (const page of ["/v1/openapi.json", "/v1/docs"]) {
    test(`${page} answers an ETag and 304 to If-None-Match, without a key`, async () => {
      const response = await api.get(page, null);
      const etag = response.headers.get("ETag") as string;
      expect(etag).toBe(expectedTag(await response.arrayBuffer()));
      const again = await api.get(page, null, { "If-None-Match": `W/${etag}` });
      expect(again.status).toBe(304);
      expect(await again.text()).toBe("");
    });
  }
});

describe("flag parameters", () => {
  const list = async (flag: string) =>
    api.get(`/v1/accounts/${accountId}/transactions?include_pending=${flag}`, alice.key);
  const statuses = async (flag: string) =>
    ((await (await list(flag)).json()) as { data: { status: string }[] }).data.map((t) => t.status);

  test("include_pending takes true/1 and false/0", async () => {
    expect(await statuses("1")).toEqual(await statuses("true"));
    expect(await statuses("true")).toContain("pending");
    expect(await statuses("0")).toEqual(await statuses("false"));
    expect(await statuses("false")).not.toContain("pending");
  });

  test("anything else is 400 invalid_request naming the parameter", async () => {
    for (const flag of ["yes", "TRUE", "True", "", "2", "on", "01", "true%20"]) {
      const response = await list(flag);
      expect(response.status).toBe(400);
      const error = await errorOf(response);
      expect(error.code).toBe("invalid_request");
      expect(error.message).toContain('"include_pending"');
      expect(error.message).toContain("true, false, 1 or 0");
    }
  });

  test("a cursor made with include_pending=true continues with include_pending=1", async () => {
    const first = (await (
      await api.get(
        `/v1/accounts/${accountId}/transactions?include_pending=true&limit=1`,
        alice.key,
      )
    ).json()) as { next_cursor: string };
    const next = await api.get(
      `/v1/accounts/${accountId}/transactions?include_pending=1&cursor=${first.next_cursor}`,
      alice.key,
    );
    expect(next.status).toBe(200);
  });
});

describe("rate limit", () => {
  test("a 304 is given only within the limit and counts against it, from the lane as from the router", async () => {
    const clock = createFakeClock();
    const services = await createTestServices({ clock, config: { apiRateLimitPerMinute: 4 } });
    try {
      const http = createHttpApp(services);
      const created = await createServiceAccount(services.db, clock, {
        email: "etag-limit@example.com",
        password: "correct horse battery staple",
      });
      const key = await createApiKey(services.db, clock, { serviceAccountId: created.account.id });
      await seedConnection(services.db, clock, created.account.id);
      const get = (headers: Record<string, string> = {}) =>
        http.fetch(
          new Request("http://svc.test/v1/accounts", {
            headers: { Authorization: `Bearer ${key.key}`, ...headers },
          }),
        );
      const first = await get();
      const etag = first.headers.get("ETag") as string;
      const second = await get({ "If-None-Match": etag });
      expect(http.fromCache(second)).toBe(false);
      expect(second.status).toBe(304);
      const third = await get({ "If-None-Match": etag });
      expect(http.fromCache(third)).toBe(false);
      expect(third.status).toBe(304);
      expect((await get()).status).toBe(200);
      // Remembered now: the lane answers the 304.
      const fromLane = await get({ "If-None-Match": etag });
      expect(fromLane.status).toBe(429);
      const remaining = [first, second, third].map((r) => r.headers.get("RateLimit-Remaining"));
      expect(remaining).toEqual(["3", "2", "1"]);
      expect(fromLane.headers.get("ETag")).toBeNull();
      clock.advance(60_000);
      const laneAnswer = await get({ "If-None-Match": etag });
      expect(http.fromCache(laneAnswer)).toBe(true);
      expect(laneAnswer.status).toBe(304);
      expect(laneAnswer.headers.get("ETag")).toBe(etag);
      expect(laneAnswer.headers.get("RateLimit-Remaining")).toBe("3");
      expect(await laneAnswer.text()).toBe("");
    } finally {
      await services.database.close();
    }
  });
});
