// GET /v1/accounts/{account_id}/transactions: date window, pending rows, limits, keyset pages.
import { afterAll, describe, expect, test } from "bun:test";
import { encodeCursor } from "../../src/api/shared/cursor.ts";
import { errorOf, startApiHarness } from "../support/api.ts";
import { generatedTransactions, insertTransactions } from "../support/bank-fixtures.ts";

// The fake clock's today is 2026-01-15.
const api = await startApiHarness();
afterAll(() => api.stop());

interface TransactionBody {
  transaction_id: string;
  status: string;
  booking_date: string;
  amount: string;
}
interface ListBody {
  data: TransactionBody[];
  next_cursor: string | null;
}

async function newAccount(label: string) {
  const tenant = await api.addTenant(`${label}-${crypto.randomUUID()}@example.com`);
  const accountId = tenant.bank.accountIds[0] as string;
  const path = (query = "") => `/v1/accounts/${accountId}/transactions${query}`;
  const list = async (query = "") => {
    const response = await api.get(path(query), tenant.key);
    if (response.status !== 200) throw new Error(`${response.status} ${await response.text()}`);
    return (await response.json()) as ListBody;
  };
  const insert = (rows: Parameters<typeof insertTransactions>[3]) =>
    insertTransactions(api.services.db, api.clock, accountId, rows);
  return { tenant, accountId, path, list, insert };
}

async function expectBadRequest(response: Response, mentioning: string) {
  expect(response.status).toBe(400);
  const error = await errorOf(response);
  expect(error.code).toBe("invalid_request");
  expect(error.message).toContain(mentioning);
}

describe("date window", () => {
  test("by default: the last 90 days up to today (UTC), both ends included", async () => {
    const account = await newAccount("window");
    const [today, oldestIn, tooOld, tomorrow] = await account.insert([
      { bookingDate: "2026-01-15" },
      { bookingDate: "2025-10-18" },
      { bookingDate: "2025-10-17" },
      { bookingDate: "2026-01-16" },
    ]);
    const ids = (await account.list()).data.map((t) => t.transaction_id);
    expect(ids).toEqual([today as string, oldestIn as string]);
    expect(ids).not.toContain(tooOld);
    expect(ids).not.toContain(tomorrow);
  });

  test("from and to are inclusive booking dates", async () => {
    const account = await newAccount("bounds");
    await account.insert([
      { bookingDate: "2025-12-31" },
      { bookingDate: "2026-01-01" },
      { bookingDate: "2026-01-05" },
      { bookingDate: "2026-01-06" },
    ]);
    const body = await account.list("?from=2026-01-01&to=2026-01-05");
    expect(body.data.map((t) => t.booking_date)).toEqual(["2026-01-05", "2026-01-01"]);
  });

  test("only from given: up to today", async () => {
    const account = await newAccount("from-only");
    await account.insert([{ bookingDate: "2026-01-15" }, { bookingDate: "2026-01-16" }]);
    expect((await account.list("?from=2025-01-01")).data.map((t) => t.booking_date)).toEqual([
      "2026-01-15",
    ]);
  });

  test("a window of 730 days is served; 731 is 400 invalid_request naming from and to", async () => {
    const account = await newAccount("max");
    expect((await account.list("?from=2024-01-16&to=2026-01-14")).data).toEqual([]);
    await expectBadRequest(
      await api.get(account.path("?from=2024-01-15&to=2026-01-14"), account.tenant.key),
      '"from" and "to"',
    );
    // Without `to`, the window ends today.
    await expectBadRequest(
      await api.get(account.path("?from=2020-01-01"), account.tenant.key),
      "at most 730",
    );
  });

  test("from after to is 400 invalid_request", async () => {
    const account = await newAccount("order");
    await expectBadRequest(
      await api.get(account.path("?from=2026-01-10&to=2026-01-09"), account.tenant.key),
      '"from"',
    );
  });

  for (const [query, parameter] of [
    ["?from=2026-02-30", '"from"'],
    ["?to=15.01.2026", '"to"'],
    ["?from=2026-1-5", '"from"'],
    ["?include_pending=yes", '"include_pending"'],
    ["?limit=0", '"limit"'],
    ["?limit=501", '"limit"'],
    ["?limit=2.5", '"limit"'],
    ["?limit=1&limit=2", '"limit"'],
    ["?since=2026-01-01", '"since"'],
  ] as const) {
    test(`a bad parameter (${query}) is 400 invalid_request naming ${parameter}`, async () => {
      const account = await newAccount("params");
      await expectBadRequest(await api.get(account.path(query), account.tenant.key), parameter);
    });
  }
});

describe("pending transactions", () => {
  test("are left out by default, included with include_pending=true, and never once they have booked", async () => {
    const account = await newAccount("pending");
    const [booked, pending] = await account.insert([
      { bookingDate: "2026-01-14", status: "booked" },
      { bookingDate: "2026-01-14", status: "pending" },
    ]);
    const [supersededPending] = await account.insert([
      { bookingDate: "2026-01-13", status: "pending", bookedTransactionId: booked as string },
    ]);
    expect((await account.list()).data.map((t) => t.transaction_id)).toEqual([booked as string]);
    const withPending = (await account.list("?include_pending=true")).data;
    expect(withPending.map((t) => t.transaction_id).sort()).toEqual(
      [booked as string, pending as string].sort(),
    );
    expect(withPending.map((t) => t.transaction_id)).not.toContain(supersededPending);
    expect(withPending.find((t) => t.transaction_id === pending)?.status).toBe("pending");
    expect((await account.list("?include_pending=false")).data).toHaveLength(1);
  });
});

describe("keyset pagination on (booking_date desc, id)", () => {
  test("pages of `limit` rows (default 100, max 500) walk every row once, in order, then next_cursor is null", async () => {
    const account = await newAccount("pages");
    await account.insert(generatedTransactions(650, { lastDate: "2026-01-15", perDay: 10 }));
    const first = await account.list();
    expect(first.data).toHaveLength(100);
    expect((await account.list("?limit=500")).data).toHaveLength(500);

    const seen: TransactionBody[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const body: ListBody = await account.list(
        `?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      seen.push(...body.data);
      cursor = body.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(4);
    expect(seen).toHaveLength(650);
    expect(new Set(seen.map((t) => t.transaction_id)).size).toBe(650);
    const order = seen.map((t) => `${t.booking_date} ${t.transaction_id}`);
    expect(order).toEqual([...order].sort().reverse());
  });

  test("rows inserted between two requests neither shift nor repeat the rows already served", async () => {
    const account = await newAccount("concurrent");
    const original = await account.insert(
      generatedTransactions(60, { lastDate: "2026-01-15", perDay: 6 }),
    );
    const first = await account.list("?limit=25");
    const boundaryDate = first.data.at(-1)?.booking_date as string;
    // New rows everywhere: newer dates, the boundary date with ids on both sides, older dates.
    await account.insert([
      { bookingDate: "2026-01-15", id: "ffffffff-ffff-4fff-bfff-ffffffffffff" },
      { bookingDate: boundaryDate, id: "00000000-0000-4000-8000-000000000001" },
      { bookingDate: boundaryDate, id: "fffffffe-ffff-4fff-bfff-ffffffffffff" },
      ...generatedTransactions(30, { lastDate: "2026-01-14", perDay: 10 }),
    ]);
    const served = [...first.data];
    let cursor = first.next_cursor;
    while (cursor) {
      const body = await account.list(`?limit=25&cursor=${encodeURIComponent(cursor)}`);
      served.push(...body.data);
      cursor = body.next_cursor;
      // More rows keep arriving while paging.
      await account.insert(generatedTransactions(5, { lastDate: "2026-01-15", perDay: 5 }));
    }
    const servedIds = served.map((t) => t.transaction_id);
    expect(new Set(servedIds).size).toBe(servedIds.length);
    for (const id of original) expect(servedIds).toContain(id);
    // Every original row appears in the same relative order as on an undisturbed read.
    const originalSet = new Set(original);
    const servedOriginal = served.filter((t) => originalSet.has(t.transaction_id));
    const keys = servedOriginal.map((t) => `${t.booking_date} ${t.transaction_id}`);
    expect(keys).toEqual([...keys].sort().reverse());
    // The row newer than page 1 was not served later (it would have shifted page 2).
    expect(servedIds).not.toContain("ffffffff-ffff-4fff-bfff-ffffffffffff");
  });

  test("the next page needs only the cursor; it carries the window and include_pending", async () => {
    const account = await newAccount("carry");
    await account.insert([
      ...generatedTransactions(4, { lastDate: "2025-06-02", perDay: 2 }),
      { bookingDate: "2025-05-31", status: "pending" },
    ]);
    const first = await account.list("?from=2025-05-31&to=2025-06-02&include_pending=true&limit=3");
    expect(first.data).toHaveLength(3);
    const second = await account.list(`?cursor=${first.next_cursor}`);
    expect(second.data).toHaveLength(2);
    expect(second.data.some((t) => t.status === "pending")).toBe(true);
    expect(second.next_cursor).toBeNull();
    // Repeating the same parameters with the cursor is fine.
    const repeated = await account.list(
      `?from=2025-05-31&to=2025-06-02&include_pending=true&cursor=${first.next_cursor}`,
    );
    expect(repeated.data).toEqual(second.data);
  });

  test("a damaged, edited or foreign cursor is 400 invalid_request naming cursor", async () => {
    const account = await newAccount("cursor");
    const other = await newAccount("cursor-other");
    await account.insert(generatedTransactions(5, { lastDate: "2026-01-15" }));
    await other.insert(generatedTransactions(5, { lastDate: "2026-01-15" }));
    const first = await account.list("?limit=2");
    const cursor = first.next_cursor as string;
    const otherCursor = (await other.list("?limit=2")).next_cursor as string;
    const decoded = JSON.parse(Buffer.from(cursor, "base64url").toString());
    const accountsCursor = (await (
      await api.get("/v1/accounts?limit=1", account.tenant.key)
    ).json()) as {
      next_cursor: string;
    };
    for (const bad of [
      "not a cursor!",
      "e30",
      cursor.slice(0, -3),
      encodeCursor({ ...decoded, date: "2026-02-31" }),
      encodeCursor({ ...decoded, extra: 1 }),
      encodeCursor({ ...decoded, from: "2020-01-01" }),
      otherCursor,
      accountsCursor.next_cursor,
    ]) {
      await expectBadRequest(
        await api.get(account.path(`?cursor=${encodeURIComponent(bad)}`), account.tenant.key),
        '"cursor"',
      );
    }
    await expectBadRequest(
      await api.get(account.path(`?from=2026-01-01&cursor=${cursor}`), account.tenant.key),
      '"cursor"',
    );
    await expectBadRequest(
      await api.get(account.path(`?include_pending=true&cursor=${cursor}`), account.tenant.key),
      '"cursor"',
    );
  });
});

describe("transaction fields", () => {
  test("amounts are signed decimal strings with a currency; dates YYYY-MM-DD; ids UUIDs", async () => {
    const account = await newAccount("fields");
    const [id] = await account.insert([
      {
        bookingDate: "2026-01-14",
        valueDate: "2026-01-15",
        amount: "-1234.50",
        description: "CARD PAYMENT",
        merchantName: "Corner Shop",
        counterpartyName: null,
      },
    ]);
    expect((await account.list()).data[0]).toEqual({
      transaction_id: id as string,
      account_id: account.accountId,
      status: "booked",
      amount: "-1234.50",
      currency: "EUR",
      booking_date: "2026-01-14",
      value_date: "2026-01-15",
      description: "CARD PAYMENT",
      counterparty_name: null,
      merchant_name: "Corner Shop",
      pending_transaction_id: null,
      booked_transaction_id: null,
    } as unknown as TransactionBody);
  });
});
