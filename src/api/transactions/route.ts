// GET /v1/accounts/{account_id}/transactions: a booking-date window, newest first, keyset pages.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { Clock } from "../../core/clock.ts";
import type { ApiEnv } from "../middleware/auth.ts";
import { entityTagOf, etagHeader } from "../middleware/etag.ts";
import { operationExamples } from "../shared/examples.ts";
import { accountPathParams } from "../shared/params.ts";
import { conditionalReadHeaders, itemResponses } from "../shared/responses.ts";
import { defaultWindowDays, maxWindowDays } from "./date-window.ts";
import { listTransactionsExamples } from "./examples.ts";
import { nextTransactionCursor, resolveTransactionQuery, transactionsQuery } from "./query.ts";
import type { TransactionReads } from "./read.ts";
import { transactionListSchema } from "./schema.ts";

const listRoute = createRoute({
  method: "get",
  path: "/accounts/{account_id}/transactions",
  operationId: "listTransactions",
  [operationExamples]: listTransactionsExamples,
  tags: ["Transactions"],
  summary: "List an account's transactions",
  description: `Transactions whose booking date lies in [from, to] (both inclusive; default the last ${defaultWindowDays} days; at most ${maxWindowDays} days), newest booking date first, then by id. Pages are keyset-based: rows that arrive while you page never shift or repeat the rows already served. The next page needs only \`cursor\` (it carries the window); if you pass \`from\`, \`to\` or \`include_pending\` with a cursor they must match it. De-duplicate on \`transaction_id\`. After an account.transactions.available event, read a small window overlapping your last read.`,
  request: { headers: conditionalReadHeaders, params: accountPathParams, query: transactionsQuery },
  responses: itemResponses(transactionListSchema, "A page of transactions."),
});

export function registerTransactionRoutes(
  app: OpenAPIHono<ApiEnv>,
  reads: TransactionReads,
  clock: Clock,
): void {
  app.openapi(listRoute, async (c) => {
    const owner = c.get("principal").serviceAccountId;
    const accountId = c.req.valid("param").account_id;
    const query = resolveTransactionQuery(c.req.valid("query"), accountId, clock.now());
    const page = await reads.listTransactions(owner, accountId, query);
    // The rows' stored JSON, written as they are (the shape of transactionListSchema).
    const cursor = nextTransactionCursor(accountId, query, page);
    const body = `{"data":[${page.json}],"next_cursor":${cursor === null ? "null" : JSON.stringify(cursor)}}`;
    // Tagged here from the text, so entityTagMiddleware need not read the body back.
    return c.body(body, 200, {
      "Content-Type": "application/json",
      [etagHeader]: entityTagOf(body),
    }) as never;
  });
}
