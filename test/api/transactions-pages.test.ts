// The transactions page reader (src/api/transactions/read.ts) against the rule it implements,
// written out here as a plain filter and sort over every stored row: every page, first and
// cursor, booked-only and with pending rows, at every limit, is those rows in that order; the
// extra row only says that another page follows, and the cursor is the last row served.
import { afterAll, describe, expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import { createAccountReads } from "../../src/api/accounts/read.ts";
import {
  createTransactionReads,
  type TransactionPosition,
  type TransactionQuery,
} from "../../src/api/transactions/read.ts";
import { ApiError } from "../../src/core/errors.ts";
import { joinedBytes } from "../../src/core/joined-bytes.ts";
import { insertTransactions, ownerWithAccount } from "../support/bank-fixtures.ts";
import { createFakeClock } from "../support/fake-clock.ts";
import { createTestServices } from "../support/services.ts";

const clock = createFakeClock();
const services = await createTestServices({ clock });
afterAll(() => services.database.close());
const { db } = services;
const reads = createTransactionReads(db, createAccountReads(db));
const utf8Text = new TextDecoder("utf-8", { fatal: true });
const nothing = new Uint8Array();

interface Row {
  transaction_id: string;
  booking_date: string;
  status: string;
}

/** The rule, row by row: the window, the pending rule, the order, strictly after the cursor. */
async function expectedRows(accountId: string, query: TransactionQuery): Promise<Row[]> {
  const all = await db.rows<{ json: string; removed_at: unknown; booked_transaction_id: unknown }>(
    sql`SELECT json, removed_at, booked_transaction_id FROM transactions WHERE account_id = ${accountId}`,
  );
  const after = query.after;
  return all
    .filter((row) => row.removed_at === null)
    .map((row) => ({ ...(JSON.parse(row.json) as Row), linked: row.booked_transaction_id }))
    .filter((row) => row.booking_date >= query.window.from)
    .filter((row) =>
      after
        ? row.booking_date < after.bookingDate ||
          (row.booking_date === after.bookingDate && row.transaction_id < after.id)
        : row.booking_date <= query.window.to,
    )
    .filter((row) =>
      query.includePending
        ? row.status === "booked" || row.linked === null
        : row.status === "booked",
    )
    .sort((a, b) =>
      a.booking_date !== b.booking_date
        ? a.booking_date < b.booking_date
          ? 1
          : -1
        : a.transaction_id < b.transaction_id
          ? 1
          : -1,
    )
    .map(({ linked: _linked, ...row }) => row);
}

/** Every page of a walk through the window, each held to the rule. */
async function walk(owner: string, accountId: string, base: Omit<TransactionQuery, "after">) {
  const served: string[] = [];
  let after: TransactionPosition | undefined;
  for (let pages = 0; pages < 1_000; pages++) {
    const query: TransactionQuery = after ? { ...base, after } : base;
    const page = await reads.listTransactions(owner, accountId, query);
    const text = utf8Text.decode(joinedBytes(nothing, page.json, nothing));
    const rows = JSON.parse(`[${text}]`) as Row[];
    const expected = await expectedRows(accountId, query);
    expect(rows).toEqual(expected.slice(0, query.limit).map((row) => expect.objectContaining(row)));
    // The bytes are the stored JSON joined with commas, nothing added.
    const stored = await db.rows<{ json: string }>(
      sql`SELECT json FROM transactions WHERE account_id = ${accountId}`,
    );
    const byId = new Map(stored.map((row) => [JSON.parse(row.json).transaction_id, row.json]));
    expect(text).toBe(rows.map((row) => byId.get(row.transaction_id)).join(","));
    served.push(...rows.map((row) => row.transaction_id));
    if (expected.length > query.limit) {
      const last = expected[query.limit - 1] as Row;
      expect(page.next).toEqual({ bookingDate: last.booking_date, id: last.transaction_id });
      after = page.next;
    } else {
      expect(page.next).toBeUndefined();
      return served;
    }
  }
  throw new Error("the walk did not end");
}

const owner = (label: string) => ownerWithAccount(db, clock, label);

const window = { from: "2025-12-01", to: "2026-01-15" };

describe("transactions pages, held to the row-by-row rule", () => {
  test("every page at every limit, booked only and with pending rows, across ties on the date", async () => {
    const { owner: ownerId, accountId } = await owner("walk");
    // 3-4 rows a day, so pages end inside a day's rows; pending rows, one booked from a pending
    // one (the pending one is then not served), one removed, some outside the window.
    const ids = await insertTransactions(
      db,
      clock,
      accountId,
      Array.from({ length: 60 }, (_, i) => ({
        bookingDate: `2026-01-${String(15 - Math.floor(i / 4)).padStart(2, "0")}`,
        status: i % 7 === 3 ? ("pending" as const) : ("booked" as const),
        description: `CARD PAYMENT ${i}`,
      })),
    );
    await insertTransactions(db, clock, accountId, [
      { bookingDate: "2025-11-30" },
      { bookingDate: "2026-01-16" },
    ]);
    const pendingId = ids[3] as string;
    const { transactions } = db.t;
    await db.write(async (tx) => {
      await tx
        .update(transactions)
        .set({ bookedTransactionId: ids[0] as string })
        .where(eq(transactions.id, pendingId));
      await tx
        .update(transactions)
        .set({ removedAt: clock.now() })
        .where(eq(transactions.id, ids[10] as string));
    });
    for (const includePending of [false, true]) {
      for (const limit of [1, 2, 3, 4, 7, 59, 60, 500]) {
        const served = await walk(ownerId, accountId, { window, includePending, limit });
        expect(new Set(served).size).toBe(served.length);
        expect(served).not.toContain(ids[10]);
        expect(served).not.toContain(pendingId);
        expect(served.length).toBe(
          (await expectedRows(accountId, { window, includePending, limit })).length,
        );
      }
    }
  });

  test("text in a row (quotes, separators, non-ASCII) is served as stored and never moves a page's end", async () => {
    const { owner: ownerId, accountId } = await owner("text");
    await insertTransactions(db, clock, accountId, [
      {
        bookingDate: "2026-01-10",
        description: 'x",{"transaction_id":"zzz","booking_date":"2099-01-01',
      },
      {
        bookingDate: "2026-01-10",
        description: ',{"transaction_id":"',
        merchantName: "Café Zürich €",
      },
      { bookingDate: "2026-01-09", description: "Überweisung — 東京 🚀", counterpartyName: '"}]' },
      { bookingDate: "2026-01-09", description: ',"booking_date":"1999-12-31"' },
      { bookingDate: "2026-01-08", description: "plain" },
    ]);
    for (const limit of [1, 2, 3, 5]) {
      await walk(ownerId, accountId, { window, includePending: false, limit });
    }
  });

  test("an empty window is an empty page with no cursor", async () => {
    const { owner: ownerId, accountId } = await owner("empty");
    const page = await reads.listTransactions(ownerId, accountId, {
      window,
      includePending: true,
      limit: 100,
    });
    expect(page.json).toEqual([]);
    expect(page.next).toBeUndefined();
  });

  test("another owner's account is not found, on a first page and on a cursor page", async () => {
    const mine = await owner("mine");
    const theirs = await owner("theirs");
    await insertTransactions(db, clock, theirs.accountId, [{ bookingDate: "2026-01-10" }]);
    for (const after of [undefined, { bookingDate: "2026-01-11", id: crypto.randomUUID() }]) {
      const attempt = reads.listTransactions(mine.owner, theirs.accountId, {
        window,
        includePending: false,
        limit: 10,
        ...(after ? { after } : {}),
      });
      const error = await attempt.then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(404);
    }
  });
});
