// One account's transactions in a booking-date window, newest first, with keyset pagination on
// (booking_date desc, id desc): a page starts strictly after the last row of the previous page, so
// rows that arrive between two requests never shift or repeat the rows already paged through.
//
// The page is each row's stored JSON (transactions.json, a generated column kept by the engine),
// read in the primary key's order and written as it is: nothing is serialised or validated per
// row per request. On SQLite the rows come as their UTF-8 bytes (CAST … AS BLOB), which the
// answer copies into its body: no string per row, no joined text to encode again (BENCHMARKS.md).
// One query per page; its extra row says whether another page follows.
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

/** A page as the API writes it: the rows' JSON, and where it ends. */
export interface TransactionPage {
  /**
   * The rows' JSON objects as UTF-8 bytes, in parts written one after another with a comma
   * between two (core/joined-bytes.ts): one part per row on SQLite, the joined rows as one part
   * on PostgreSQL; no part for an empty page.
   */
  json: readonly Uint8Array[];
  /** The last row served, when another page follows. */
  next?: TransactionPosition;
}

export interface TransactionReads {
  /** `dataGeneration`: the service account's, as the key check read it (requireOwnAccount). */
  listTransactions(
    serviceAccountId: string,
    accountId: string,
    query: TransactionQuery,
    dataGeneration?: number,
  ): Promise<TransactionPage>;
}

/** A prepared page query as both engines' drizzle drivers give it. */
interface PageQuery {
  /** PostgreSQL: the rows' JSON as text. */
  execute(params: Record<string, unknown>): PromiseLike<{ json: string | Uint8Array }[]>;
  /** SQLite only: the rows as arrays of their JSON's bytes, read synchronously (`values()`). */
  values?(params: Record<string, unknown>): (readonly [Uint8Array])[];
}

const utf8 = new TextEncoder();
const utf8Text = new TextDecoder();

/**
 * The page's rows' JSON as bytes, one part per row. On SQLite straight from the prepared
 * statement (no row object per row: drizzle's row mapping cost about a tenth of an uncached
 * page's CPU), run with the other pages asked for in the same turn of the event loop and in
 * the next one's poll (db/turn-batch.ts: ~25 % less CPU per page under load); on PostgreSQL
 * through drizzle's execute (a round trip dwarfs the mapping), as text.
 */
async function readRows(
  query: PageQuery,
  params: Record<string, unknown>,
  batch: TurnBatch,
): Promise<readonly (Uint8Array | string)[]> {
  if (query.values) {
    const statement = query as Required<PageQuery>;
    const rows = await batch.run(() => statement.values(params));
    return rows.map((row) => row[0]);
  }
  return (await query.execute(params)).map((row) => row.json);
}

/** The first `count` rows as TransactionPage.json's parts. */
function pageParts(rows: readonly (Uint8Array | string)[], count: number): Uint8Array[] {
  const served = rows.slice(0, count);
  // One engine gives every row the same way: PostgreSQL's text is joined and encoded once,
  // SQLite's bytes are the parts as they are.
  if (typeof served[0] === "string") return [utf8.encode(served.join(","))];
  return served as Uint8Array[];
}

/** A row's JSON as the database gave it, parsed. */
function parsedRow(row: Uint8Array | string): unknown {
  return JSON.parse(typeof row === "string" ? row : utf8Text.decode(row));
}

const p = (name: string) => sql.placeholder(name);

export function createTransactionReads(
  db: Db,
  accounts: Pick<AccountReads, "requireOwnAccount">,
): TransactionReads {
  const { transactions: t } = db.t;
  // SQLite gives the JSON's bytes as they are stored (a TEXT column holds UTF-8); PostgreSQL's
  // text comes through its driver.
  const jsonColumn = db.engine === "sqlite" ? sql<Uint8Array>`CAST(${t.json} AS BLOB)` : t.json;
  // Rows of the page in key order (the primary key, scanned backwards), one more than asked for.
  const page = (pending: boolean, later: boolean) =>
    db
      // The JSON alone: every further column would cost a value per row (the position of the
      // last row served is read from its JSON).
      .select({ json: jsonColumn })
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
    async listTransactions(serviceAccountId, accountId, query, dataGeneration) {
      const kind = pages[query.includePending ? "pending" : "booked"];
      // The owner's check first (one lookup by key): a join here would cost the page its order.
      await accounts.requireOwnAccount(serviceAccountId, accountId, dataGeneration);
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
      if (rows.length <= query.limit) return { json: pageParts(rows, rows.length) };
      // One row more than asked: it only says that another page follows.
      const last = parsedRow(rows[query.limit - 1] as Uint8Array | string) as {
        transaction_id: string;
        booking_date: string;
      };
      return {
        json: pageParts(rows, query.limit),
        next: { bookingDate: last.booking_date, id: last.transaction_id },
      };
    },
  };
}
