// The OpenAPI document is valid, documents every error, and matches what the routes return.
import { afterAll, describe, expect, test } from "bun:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { updateServiceAccount } from "../../src/accounts/service-accounts.ts";
import { recordAccountEvent } from "../../src/webhooks/events/write.ts";
import { startApiHarness } from "../support/api.ts";
import { insertTransactions } from "../support/bank-fixtures.ts";
import { documentChecker } from "../support/openapi.ts";

const api = await startApiHarness({ config: { apiRateLimitPerMinute: 1000 } });
afterAll(() => api.stop());
const tenant = await api.addTenant("docs@example.com");
const accountId = tenant.bank.accountIds[0] as string;
await insertTransactions(api.services.db, api.clock, accountId, [
  { bookingDate: "2026-01-14", status: "pending", merchantName: null, valueDate: null },
  { bookingDate: "2026-01-13", amount: "2500.00", counterpartyName: "Employer Ltd" },
]);
const event = await api.services.db.write((tx) =>
  recordAccountEvent(tx, api.clock, {
    serviceAccountId: tenant.accountId,
    type: "account.transactions.available",
    data: { account_id: accountId, fetched_at: api.clock.now().toISOString(), new_count: 2 },
  }),
);
const documentResponse = await api.get("/v1/openapi.json", null);
const document = (await documentResponse.json()) as Record<string, unknown>;
const checker = documentChecker(document);
const transactionsPath = "/accounts/{account_id}/transactions";

describe("/v1/openapi.json", () => {
  test("is served without a key and is a valid OpenAPI 3.1 document", async () => {
    expect(documentResponse.status).toBe(200);
    expect(documentResponse.headers.get("Content-Type")).toContain("application/json");
    const validator = new Validator();
    const result = await validator.validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  test("documents bearer authentication and the server's /v1 base URL", () => {
    expect(document.security).toEqual([{ bearerAuth: [] }]);
    // The test server serves at the address it listens on (test/support/server.ts).
    expect(document.servers).toEqual([{ url: `${api.server.baseUrl}/v1` }]);
  });

  test("every route documents 401, 403, 429 and 500 with the exact codes, and 400 (the change feed's with cursor_expired); item routes 404", () => {
    const paths = document.paths as Record<
      string,
      Record<string, { responses: Record<string, unknown> }>
    >;
    for (const { method, path } of checker.operations()) {
      const responses = paths[path]?.[method]?.responses ?? {};
      // The event stream has no final body, so no 304.
      const conditional = path === "/events/stream" ? [] : ["304"];
      expect(Object.keys(responses).sort()).toEqual(
        (path.includes("{")
          ? ["200", ...conditional, "400", "401", "403", "404", "429", "500"]
          : ["200", ...conditional, "400", "401", "403", "429", "500"]
        ).sort(),
      );
      const codes = (status: string) =>
        (
          responses[status] as {
            content: {
              "application/json": {
                schema: { properties: { error: { properties: { code: { enum: string[] } } } } };
              };
            };
          }
        ).content["application/json"].schema.properties.error.properties.code.enum;
      expect(codes("401")).toEqual(["not_authenticated", "invalid_api_key", "user_inactive"]);
      expect(codes("403").sort()).toEqual([
        "connect_not_available",
        "demo_account",
        "subscription_lapsed",
      ]);
      expect(codes("429")).toEqual(["rate_limited"]);
      // The change feed's cursor can also have expired.
      expect(codes("400")).toEqual(
        path.endsWith("/changes") ? ["invalid_request", "cursor_expired"] : ["invalid_request"],
      );
    }
  });

  test("the checker really rejects a body that differs from the document", () => {
    expect(() =>
      checker.check("get", "/accounts", 200, { data: [], next_cursor: null, more: 1 }),
    ).toThrow("does not match");
    expect(() =>
      checker.check("get", "/accounts", 401, { error: { code: "not_found", message: "x" } }),
    ).toThrow("does not match");
    expect(() => checker.check("get", "/accounts", 418, {})).toThrow("not documented");
  });
});

describe("real responses match the document", () => {
  async function expectDocumented(path: string, key: string | null, status: number) {
    const response = await api.get(
      `/v1${path.replace("{account_id}", accountId).replace("{connection_id}", tenant.bank.connectionId).replace("{event_id}", event.eventId)}`,
      key,
    );
    expect(response.status).toBe(status);
    checker.check("get", path.split("?")[0] as string, status, await response.json());
  }

  test("200 of every route, with pending, null and positive amounts in the data", async () => {
    // The event stream is not JSON; test/api/events.test.ts checks what it sends.
    for (const { path } of checker.operations()) {
      if (path !== "/events/stream") await expectDocumented(path, tenant.key, 200);
    }
    await expectDocumented(`${transactionsPath}?include_pending=true`, tenant.key, 200);
  });

  test("400 invalid_request and 404 not_found", async () => {
    await expectDocumented(`${transactionsPath}?limit=0`, tenant.key, 400);
    const response = await api.get(
      `/v1/accounts/00000000-0000-4000-8000-000000000000/transactions`,
      tenant.key,
    );
    expect(response.status).toBe(404);
    checker.check("get", transactionsPath, 404, await response.json());
  });

  test("401 and 403 of every kind", async () => {
    await expectDocumented(transactionsPath, null, 401);
    await expectDocumented(transactionsPath, "svk_x", 401);
    for (const flags of [
      { disabled: true },
      { demo: true },
      { connectEnabled: false },
      { status: "lapsed" as const },
    ]) {
      await updateServiceAccount(api.services.db, api.clock, tenant.accountId, flags);
      await expectDocumented(transactionsPath, tenant.key, "disabled" in flags ? 401 : 403);
      await updateServiceAccount(api.services.db, api.clock, tenant.accountId, {
        disabled: false,
        demo: false,
        connectEnabled: true,
        status: "sandbox",
      });
    }
  });

  test("429 rate_limited", async () => {
    const limited = await startApiHarness({ config: { apiRateLimitPerMinute: 1 } });
    try {
      const other = await limited.addTenant("limited@example.com");
      expect((await limited.get("/v1/accounts", other.key)).status).toBe(200);
      const response = await limited.get("/v1/accounts", other.key);
      expect(response.status).toBe(429);
      checker.check("get", "/accounts", 429, await response.json());
    } finally {
      await limited.stop();
    }
  });

  test("500 internal_error (the database is gone)", async () => {
    const broken = await startApiHarness();
    const other = await broken.addTenant("broken@example.com");
    await broken.services.database.close();
    try {
      const response = await broken.get("/v1/accounts", other.key);
      expect(response.status).toBe(500);
      checker.check("get", "/accounts", 500, await response.json());
    } finally {
      await broken.stop();
    }
  });
});
