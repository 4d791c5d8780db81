// One account's transactions in a booking-date window, newest first, with keyset pagination on
// (booking_date desc, id desc): a page starts strictly after the last row of the previous page, so
// rows that arrive between two requests never shift or repeat the rows already paged through.
//
// The page is each row's stored JSON (transactions.json, a generated column kept by the engine),
// read in the primary key's order and joined: nothing is serialised or validated per row per
// request. One query per page; its extra row says whether another page follows.
import { and, desc, eq, gte, isNull, lte, or, sql } from "drizzle-orm";
import type { Db } from "../../db/store.ts";
import { createTurnBatch, type TurnBatch } from "../../db/turn-batch.ts";
// A transaction is read under its account: the account must be the key's (requireOwnAccount).
import type { AccountReads } from "../accounts/read.ts";
import type { DateWindow } from "./date-window.ts";

/** Where a page ends: the last row served. */
export interface TransactionPosition {
  bookingDate: string;
  id: string;
}

export interface TransactionQuery {
  window: DateWindow;
  /** Pending rows are left out unless asked for; a pending row that has booked is never shown. */
  includePending: boolean;
  limit: number;
  after?: TransactionPosition;
}

/** A page as the API writes it: the rows' JSON, joined with commas, and where it ends. */
export interface TransactionPage {
  /** The rows' JSON objects joined with commas ("" for an empty page). */
  json: string;
  /** The last row served, when another page follows. */
  next?: TransactionPosition;
}

export interface TransactionReads {
  listTransactions(
    serviceAccountId: string,
    accountId: string,
    query: TransactionQuery,
  ): Promise<TransactionPage>;
}

/** The first `count` rows' JSON objects, joined with commas. */
function joinJson(rows: readonly (readonly [string])[], count: number): string {
  let joined = "";
  for (let i = 0; i < count; i++) joined += i === 0 ? rows[i]?.[0] : `,${rows[i]?.[0]}`;
  return joined;
}

/** A prepared page query as both engines' drizzle drivers give it. */
interface PageQuery {
  execute(params: Record<string, unknown>): PromiseLike<{ json: string }[]>;
  /** SQLite only: the rows as arrays, read synchronously (bun:sqlite's `values()`). */
  values?(params: Record<string, unknown>): (readonly [string])[];
}

/**
 * The page's rows as one-element arrays. On SQLite straight from the prepared statement (no row
 * object per row: drizzle's row mapping cost about a tenth of an uncached page's CPU), run with
 * the other pages asked for in the same turn of the event loop (db/turn-batch.ts: ~25 % less CPU
 * per page under load); on PostgreSQL through drizzle's execute (a round trip dwarfs the mapping).
 */
async function readRows(
  query: PageQuery,
  params: Record<string, unknown>,
  batch: TurnBatch,
): Promise<(readonly [string])[]> {
  if (query.values) {
    const statement = query as Required<PageQuery>;
    return batch.run(() => statement.values(params));
  }
  return (await query.execute(params)).map((row) => [row.json] as const);
}

const p = (name: string) => sql.placeholder(name);

export function createTransactionReads(
  db: Db,
  accounts: Pick<AccountReads, "requireOwnAccount">,
): TransactionReads {
  const { transactions: t } = db.t;
  // Rows of the page in key order (the primary key, scanned backwards), one more than asked for.
  const page = (pending: boolean, later: boolean) =>
    db
      // The JSON alone: every further column would cost a string per row (the position of the
      // last row served is read from its JSON).
      .select({ json: t.json })
      .from(t)
      .where(
        and(
          eq(t.accountId, p("account")),
          gte(t.bookingDate, p("from")),
          // A later page starts strictly after the previous page's last row: one row-value bound,
          // which both engines seek to in the primary key, so its cost does not grow with depth
          // (the cursor's row is never after `to`).
          later
            ? sql`(${t.bookingDate}, ${t.id}) < (${p("date")}, ${p("id")})`
            : lte(t.bookingDate, p("to")),
          // A pending row the provider dropped is no longer served (docs/providers.md).
          isNull(t.removedAt),
          pending
            ? or(eq(t.status, "booked"), isNull(t.bookedTransactionId))
            : eq(t.status, "booked"),
        ),
      )
      .orderBy(desc(t.bookingDate), desc(t.id))
      .limit(p("limit"))
      .prepare(`svc_transactions_${pending ? "pending" : "booked"}_${later ? "later" : "first"}`);
  const batch = createTurnBatch();
  const pages: Record<"booked" | "pending", Record<"first" | "later", PageQuery>> = {
    booked: { first: page(false, false), later: page(false, true) },
    pending: { first: page(true, false), later: page(true, true) },
  };
  return {
    async listTransactions(serviceAccountId, accountId, query) {
      const kind = pages[query.includePending ? "pending" : "booked"];
      // The owner's check first (one lookup by key): a join here would cost the page its order.
      await accounts.requireOwnAccount(serviceAccountId, accountId);
      const params = {
        account: accountId,
        from: query.window.from,
        to: query.window.to,
        limit: query.limit + 1,
      };
      const rows = query.after
        ? await readRows(
            kind.later,
            { ...params, date: query.after.bookingDate, id: query.after.id },
            batch,
          )
        : await readRows(kind.first, params, batch);
      if (rows.length === 0) {
        return { json: "" };
      }
      if (rows.length <= query.limit) return { json: joinJson(rows, rows.length) };
      // One row more than asked: it only says that another page follows.
      const last = JSON.parse((rows[query.limit - 1] as readonly [string])[0]) as {
        transaction_id: string;
        booking_date: string;
      };
      return {
        json: joinJson(rows, query.limit),
        next: { bookingDate: last.booking_date, id: last.transaction_id },
      };
    },
  };
}
