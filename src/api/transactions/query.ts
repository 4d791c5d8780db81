// The query string GET /v1/accounts/{account_id}/transactions takes, its validated form turned
// into a TransactionQuery, and a page into its next cursor. The cursor carries the resolved
// window and include_pending, so the next page needs only `cursor`, and "today" moving past
// midnight between two pages cannot change the window under the caller.
import { z } from "@hono/zod-openapi";
import { decodeCursor, encodeCursor, foreignCursor, invalidCursor } from "../shared/cursor.ts";
import { cursorParam, defaultPageLimit, limitParam } from "../shared/params.ts";
import { type DateWindow, maxWindowDays, resolveDateWindow, windowDays } from "./date-window.ts";
import { checkTransactionCursor } from "./query-check.ts";
import type { TransactionPage, TransactionQuery } from "./read.ts";

/** What a flag parameter accepts: `true`/`1` and `false`/`0`, nothing else. */
const flagValues = { true: true, false: false, "1": true, "0": false } as const;
const flagMessage = "must be true, false, 1 or 0";

/** An optional yes/no query parameter; documented as a boolean (sent as `true` or `false`). */
function flagParam(name: string, description: string) {
  return z
    .enum(["true", "false", "1", "0"], { error: flagMessage })
    .transform((value) => flagValues[value])
    .optional()
    .openapi({
      param: { name, in: "query" },
      type: "boolean",
      description: `${description} Accepts \`true\`/\`false\` or \`1\`/\`0\`.`,
    });
}

const dateMessage = "must be a calendar date as YYYY-MM-DD";
function dateParam(name: string, description: string) {
  return z.iso
    .date({ error: dateMessage })
    .optional()
    .openapi({ param: { name, in: "query" }, description, example: "2026-01-15" });
}

export const transactionsQuery = z
  .object({
    from: dateParam(
      "from",
      "First booking date, inclusive (default: 89 days before `to`, so 90 days in all).",
    ),
    to: dateParam("to", "Last booking date, inclusive (default: today, UTC)."),
    include_pending: flagParam(
      "include_pending",
      "Also return pending transactions (default false). A pending row that has since booked is never returned; its booked transaction is.",
    ),
    limit: limitParam,
    cursor: cursorParam,
  })
  .strict();

export type TransactionsQueryInput = z.infer<typeof transactionsQuery>;

const dayText = z.iso.date();
/**
 * A cursor's JSON, stated in zod; checked by hand per request (query-check.ts, held to this
 * schema by its test).
 */
export const transactionCursorSchema = z
  .object({
    v: z.literal(1),
    k: z.literal("transactions"),
    account: z.guid(),
    from: dayText,
    to: dayText,
    pending: z.boolean(),
    date: dayText,
    id: z.guid(),
  })
  .strict();

function fromCursor(cursorText: string, accountId: string, input: TransactionsQueryInput) {
  const cursor = decodeCursor(cursorText, { safeParse: checkTransactionCursor });
  const pending = input.include_pending ?? cursor.pending;
  if (
    cursor.account !== accountId ||
    (input.from !== undefined && input.from !== cursor.from) ||
    (input.to !== undefined && input.to !== cursor.to) ||
    pending !== cursor.pending
  ) {
    throw foreignCursor();
  }
  const window: DateWindow = { from: cursor.from, to: cursor.to };
  // Cursors are only issued for valid windows: one that breaks the rules was edited.
  if (window.from > window.to || windowDays(window) > maxWindowDays) {
    throw invalidCursor("not a cursor of this API");
  }
  return { window, includePending: pending, after: { bookingDate: cursor.date, id: cursor.id } };
}

export function resolveTransactionQuery(
  input: TransactionsQueryInput,
  accountId: string,
  now: Date,
): TransactionQuery {
  const limit = input.limit ?? defaultPageLimit;
  if (input.cursor !== undefined) return { ...fromCursor(input.cursor, accountId, input), limit };
  return {
    window: resolveDateWindow(now, input),
    includePending: input.include_pending ?? false,
    limit,
  };
}

export function nextTransactionCursor(
  accountId: string,
  query: TransactionQuery,
  page: TransactionPage,
): string | null {
  if (!page.next) return null;
  return encodeCursor({
    v: 1,
    k: "transactions",
    account: accountId,
    from: query.window.from,
    to: query.window.to,
    pending: query.includePending,
    date: page.next.bookingDate,
    id: page.next.id,
  });
}
