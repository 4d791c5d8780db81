// One shared suite run over every /v1 route of the served OpenAPI document: each one refuses a
// missing, malformed, unknown or revoked key, and never reads another account's data.
import { afterAll, describe, expect, test } from "bun:test";
import { revokeApiKey } from "../../src/keys/api-keys.ts";
import { recordAccountEvent } from "../../src/webhooks/events/write.ts";
import { errorOf, startApiHarness, type Tenant } from "../support/api.ts";
import { insertTransactions } from "../support/bank-fixtures.ts";
import { documentChecker } from "../support/openapi.ts";

const api = await startApiHarness();
afterAll(() => api.stop());
const alice = await api.addTenant("alice@example.com");
const bob = await api.addTenant("bob@example.com");
const revoked = await api.addTenant("revoked@example.com");
await revokeApiKey(api.services.db, api.clock, revoked.keyId);
const eventIds = new Map<Tenant, string>();
for (const tenant of [alice, bob]) {
  await insertTransactions(api.services.db, api.clock, tenant.bank.accountIds[0] as string, [
    { bookingDate: "2026-01-10" },
  ]);
  const event = await api.services.db.write((tx) =>
    recordAccountEvent(tx, api.clock, {
      serviceAccountId: tenant.accountId,
      type: "account.balance.updated",
      data: {
        account_id: tenant.bank.accountIds[0] as string,
        fetched_at: api.clock.now().toISOString(),
      },
    }),
  );
  eventIds.set(tenant, event.eventId);
}
const document = (await (await api.get("/v1/openapi.json", null)).json()) as Record<
  string,
  unknown
>;
const checker = documentChecker(document);
const routes = checker.operations();

function concrete(pathTemplate: string, tenant: Tenant): string {
  return `/v1${pathTemplate}`
    .replace("{account_id}", tenant.bank.accountIds[0] as string)
    .replace("{connection_id}", tenant.bank.connectionId)
    .replace("{event_id}", eventIds.get(tenant) as string);
}

test("the document lists every /v1 resource route (none can escape this suite)", () => {
  expect(routes.map((r) => `${r.method} ${r.path}`).sort()).toEqual([
    "get /accounts",
    "get /accounts/{account_id}",
    "get /accounts/{account_id}/balance",
    "get /accounts/{account_id}/transactions",
    "get /accounts/{account_id}/transactions/changes",
    "get /connections",
    "get /connections/{connection_id}",
    "get /events",
    "get /events/stream",
    "get /events/{event_id}",
  ]);
});

const badKeys = [
  ["a missing key", null, "not_authenticated"],
  ["a malformed key", "svk_short", "invalid_api_key"],
  ["an unknown key", `svk_${"Q".repeat(8)}_${"R".repeat(43)}`, "invalid_api_key"],
  ["a revoked key", revoked.key, "invalid_api_key"],
] as const;

for (const route of routes) {
  describe(`${route.method.toUpperCase()} ${route.path}`, () => {
    for (const [label, key, code] of badKeys) {
      test(`refuses ${label} with 401 ${code}`, async () => {
        const response = await api.get(concrete(route.path, alice), key);
        expect(response.status).toBe(401);
        expect(response.headers.get("WWW-Authenticate")).toStartWith("Bearer");
        const body = await response.clone().json();
        checker.check(route.method, route.path, 401, body);
        expect((await errorOf(response)).code).toBe(code);
      });
    }

    // The event stream never ends by itself; test/api/events.test.ts covers what it sends.
    const streaming = route.path === "/events/stream";
    test("serves its own account's data with a valid key (200, as documented)", async () => {
      const controller = new AbortController();
      const response = await fetch(`${api.server.baseUrl}${concrete(route.path, alice)}`, {
        headers: { Authorization: `Bearer ${alice.key}` },
        signal: controller.signal,
      });
      expect(response.status).toBe(200);
      if (streaming) {
        expect(response.headers.get("content-type")).toStartWith("text/event-stream");
        controller.abort();
        return;
      }
      checker.check(route.method, route.path, 200, await response.json());
    });

    if (route.path.includes("{")) {
      test("answers 404 not_found for another account's id, with no hint that it exists", async () => {
        const foreign = await api.get(concrete(route.path, bob), alice.key);
        const missing = await api.get(
          concrete(route.path, bob).replace(
            /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/,
            "00000000-0000-4000-8000-000000000000",
          ),
          alice.key,
        );
        expect(foreign.status).toBe(404);
        expect(missing.status).toBe(404);
        const foreignError = await errorOf(foreign);
        const missingError = await errorOf(missing);
        expect(foreignError.code).toBe("not_found");
        // Same wording for "someone else's" and "nobody's" (only the id differs).
        expect(foreignError.message.replace(/[0-9a-f-]{36}/, "ID")).toBe(
          missingError.message.replace(/[0-9a-f-]{36}/, "ID"),
        );
        checker.check(route.method, route.path, 404, { error: foreignError });
      });
    } else if (!streaming) {
      test("lists only its own account's data", async () => {
        const body = (await (await api.get(concrete(route.path, alice), alice.key)).json()) as {
          data: Record<string, unknown>[];
        };
        const text = JSON.stringify(body);
        expect(body.data.length).toBeGreaterThan(0);
        expect(text).not.toContain(bob.bank.connectionId);
        for (const id of bob.bank.accountIds) expect(text).not.toContain(id);
        expect(text).not.toContain(eventIds.get(bob) as string);
      });
    }
  });
}
