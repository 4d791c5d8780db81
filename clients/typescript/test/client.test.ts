// The generated client (@svc/client) against a real running server (Bun.serve on loopback, the
// whole HTTP app, a fresh database per suite on this run's engine): every /v1 route, pagination
// to the end, the typed error envelopes, a conditional read, and the type-level tests compiled
// with the client's own TypeScript 5.
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { startApiHarness } from "../../../test/support/api.ts";
import { generatedTransactions, insertTransactions } from "../../../test/support/bank-fixtures.ts";
import { createSvcClient } from "../src/index.ts";

const api = await startApiHarness({ config: { apiRateLimitPerMinute: 1000 } });
afterAll(() => api.stop());
const tenant = await api.addTenant("client@example.com");
const other = await api.addTenant("client-other@example.com");
const accountId = tenant.bank.accountIds[0] as string;
const transactionIds = await insertTransactions(
  api.services.db,
  api.clock,
  accountId,
  generatedTransactions(23, { lastDate: "2026-01-14" }),
);
await insertTransactions(api.services.db, api.clock, accountId, [
  { bookingDate: "2026-01-14", status: "pending", merchantName: null, valueDate: null },
]);
const svc = createSvcClient({ baseUrl: api.server.baseUrl, apiKey: tenant.key });
const window = { from: "2025-12-01", to: "2026-01-14" };

describe("every /v1 route through the client", () => {
  test("GET /accounts lists the key's accounts", async () => {
    const { data, error, response } = await svc.GET("/accounts");
    expect(error).toBeUndefined();
    expect(response.status).toBe(200);
    expect(data?.data.map((a) => a.account_id).sort()).toEqual([...tenant.bank.accountIds].sort());
    expect(data?.next_cursor).toBeNull();
  });

  test("GET /accounts/{account_id} reads one account", async () => {
    const { data } = await svc.GET("/accounts/{account_id}", {
      params: { path: { account_id: accountId } },
    });
    expect(data?.account_id).toBe(accountId);
    expect(data?.connection_id).toBe(tenant.bank.connectionId);
  });

  test("GET /accounts/{account_id}/balance reads the balance", async () => {
    const { data } = await svc.GET("/accounts/{account_id}/balance", {
      params: { path: { account_id: accountId } },
    });
    expect(data?.current).toBe("1520.75");
    expect(data?.available).toBe("1400.00");
  });

  test("GET /accounts/{account_id}/transactions/changes pages every transaction as added, then from the stored cursor", async () => {
    const ids: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const { data, error } = await svc.GET("/accounts/{account_id}/transactions/changes", {
        params: {
          path: { account_id: accountId },
          query: { limit: 10, ...(cursor ? { cursor } : {}) },
        },
      });
      expect(error).toBeUndefined();
      ids.push(...(data?.added ?? []).map((t) => t.transaction_id));
      cursor = data?.next_cursor;
      if (!data?.has_more) break;
    }
    expect(ids).toHaveLength(24); // 23 booked and 1 pending
    const quiet = await svc.GET("/accounts/{account_id}/transactions/changes", {
      params: { path: { account_id: accountId }, query: { ...(cursor ? { cursor } : {}) } },
    });
    expect(quiet.data).toMatchObject({ added: [], modified: [], removed: [], has_more: false });
  });

  test("GET /accounts/{account_id}/transactions takes the window and the include_pending flag", async () => {
    const booked = await svc.GET("/accounts/{account_id}/transactions", {
      params: { path: { account_id: accountId }, query: { ...window, limit: 500 } },
    });
    expect(booked.data?.data).toHaveLength(23);
    const all = await svc.GET("/accounts/{account_id}/transactions", {
      params: {
        path: { account_id: accountId },
        query: { ...window, include_pending: true, limit: 500 },
      },
    });
    expect(all.data?.data).toHaveLength(24);
    expect(all.data?.data.some((t) => t.status === "pending")).toBe(true);
  });

  test("GET /connections and GET /connections/{connection_id}", async () => {
    const list = await svc.GET("/connections");
    expect(list.data?.data.map((c) => c.connection_id)).toEqual([tenant.bank.connectionId]);
    const one = await svc.GET("/connections/{connection_id}", {
      params: { path: { connection_id: tenant.bank.connectionId } },
    });
    expect(one.data?.account_ids.sort()).toEqual([...tenant.bank.accountIds].sort());
  });
});

describe("pagination", () => {
  test("following next_cursor (with the same limit) reads every row exactly once", async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const { data, error } = await svc.GET("/accounts/{account_id}/transactions", {
        params: {
          path: { account_id: accountId },
          query: cursor === undefined ? { ...window, limit: 5 } : { cursor, limit: 5 },
        },
      });
      expect(error).toBeUndefined();
      seen.push(...(data?.data.map((t) => t.transaction_id) ?? []));
      cursor = data?.next_cursor ?? undefined;
      pages++;
    } while (cursor !== undefined);
    expect(pages).toBe(5);
    expect(seen.sort()).toEqual([...transactionIds].sort());
  });
});

describe("errors arrive typed, as the error envelope", () => {
  test("404 not_found for another account's id", async () => {
    const { data, error, response } = await svc.GET("/accounts/{account_id}", {
      params: { path: { account_id: other.bank.accountIds[0] as string } },
    });
    expect(data).toBeUndefined();
    expect(response.status).toBe(404);
    expect(error?.error.code).toBe("not_found");
  });

  test("400 invalid_request naming the parameter", async () => {
    const { error, response } = await svc.GET("/accounts", { params: { query: { limit: 0 } } });
    expect(response.status).toBe(400);
    expect(error?.error.code).toBe("invalid_request");
    expect(error?.error.message).toContain('"limit"');
  });

  test("401 invalid_api_key for an unknown key", async () => {
    const stranger = createSvcClient({
      baseUrl: `${api.server.baseUrl}/v1/`,
      apiKey: `svk_${"a".repeat(8)}_${"b".repeat(43)}`,
    });
    const { error, response } = await stranger.GET("/accounts");
    expect(response.status).toBe(401);
    expect(error?.error.code).toBe("invalid_api_key");
  });
});

describe("conditional reads", () => {
  test("the ETag sent back in If-None-Match is answered 304 with no data", async () => {
    const first = await svc.GET("/accounts/{account_id}/balance", {
      params: { path: { account_id: accountId } },
    });
    const etag = first.response.headers.get("ETag") as string;
    expect(etag).toBeTruthy();
    const again = await svc.GET("/accounts/{account_id}/balance", {
      params: { path: { account_id: accountId }, header: { "If-None-Match": etag } },
    });
    expect(again.response.status).toBe(304);
    expect(again.data).toBeUndefined();
  });
});

describe("types", () => {
  test("wrong paths, parameters and fields do not compile (test/types.ts, TypeScript 5)", async () => {
    const packageDir = join(import.meta.dir, "..");
    const tsc = Bun.spawn([join(packageDir, "node_modules/.bin/tsc"), "-p", packageDir], {
      stdout: "pipe",
      stderr: "pipe",
    });
    const output = `${await new Response(tsc.stdout).text()}${await new Response(tsc.stderr).text()}`;
    expect(output).toBe("");
    expect(await tsc.exited).toBe(0);
  }, 60_000);
});
