// GET /v1/accounts/{account_id}/transactions: a booking-date window, newest first, keyset pages.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Clock } from "../../clock.ts";
import type { ApiEnv } from "../auth.ts";
import { decodeCursor, encodeCursor, foreignCursor, invalidCursor } from "../cursor.ts";
import {
  type DateWindow,
  defaultWindowDays,
  maxWindowDays,
  resolveDateWindow,
  windowDays,
} from "../date-window.ts";
import { accountPathParams, defaultPageLimit, transactionsQuery } from "../params.ts";
import type { BankReads } from "../reads/bank-reads.ts";
import type { TransactionQuery } from "../reads/transactions.ts";
import { itemResponses } from "../responses.ts";
import { transactionListSchema } from "../schemas.ts";

const listRoute = createRoute({
  method: "get",
  path: "/accounts/{account_id}/transactions",
  operationId: "listTransactions",
  tags: ["Transactions"],
  summary: "List an account's transactions",
  description: `Transactions whose booking date lies in [from, to] (both inclusive; default the last ${defaultWindowDays} days; at most ${maxWindowDays} days), newest booking date first, then by id. Pages are keyset-based: rows that arrive while you page never shift or repeat the rows already served. The next page needs only \`cursor\` (it carries the window); if you pass \`from\`, \`to\` or \`include_pending\` with a cursor they must match it. De-duplicate on \`transaction_id\`. After an account.transactions.available event, read a small window overlapping your last read.`,
  request: { params: accountPathParams, query: transactionsQuery },
  responses: itemResponses(transactionListSchema, "A page of transactions."),
});

const dayText = z.iso.date();
const transactionCursor = z
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

type QueryInput = z.infer<typeof transactionsQuery>;

function fromCursor(cursorText: string, accountId: string, input: QueryInput) {
  const cursor = decodeCursor(cursorText, transactionCursor);
  const pending =
    input.include_pending === undefined ? cursor.pending : input.include_pending === "true";
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

export function registerTransactionRoutes(
  app: OpenAPIHono<ApiEnv>,
  reads: BankReads,
  clock: Clock,
): void {
  app.openapi(listRoute, (c) => {
    const owner = c.get("principal").serviceAccountId;
    const accountId = c.req.valid("param").account_id;
    const input = c.req.valid("query");
    const query: TransactionQuery =
      input.cursor === undefined
        ? {
            window: resolveDateWindow(clock.now(), input),
            includePending: input.include_pending === "true",
            limit: input.limit ?? defaultPageLimit,
          }
        : { ...fromCursor(input.cursor, accountId, input), limit: input.limit ?? defaultPageLimit };
    const page = reads.listTransactions(owner, accountId, query);
    const last = page.data.at(-1);
    const nextCursor =
      page.hasMore && last
        ? encodeCursor({
            v: 1,
            k: "transactions",
            account: accountId,
            from: query.window.from,
            to: query.window.to,
            pending: query.includePending,
            date: last.booking_date,
            id: last.transaction_id,
          })
        : null;
    return c.json({ data: page.data, next_cursor: nextCursor }, 200);
  });
}
