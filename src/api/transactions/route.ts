// GET /v1/accounts/{account_id}/transactions: a booking-date window, newest first, keyset pages.
import { createRoute } from "@hono/zod-openapi";
import type { Clock } from "../../core/clock.ts";
import { joinedBytes } from "../../core/joined-bytes.ts";
import { readRoute } from "../middleware/read-route.ts";
import { operationExamples } from "../shared/examples.ts";
import { accountPathParams } from "../shared/params.ts";
import { conditionalReadHeaders, itemResponses } from "../shared/responses.ts";
import { defaultWindowDays, maxWindowDays } from "./date-window.ts";
import { listTransactionsExamples } from "./examples.ts";
import { nextTransactionCursor, resolveTransactionQuery, transactionsQuery } from "./query.ts";
import { checkTransactionsQuery } from "./query-check.ts";
import type { TransactionReads } from "./read.ts";
import { transactionListSchema } from "./schema.ts";

const utf8 = new TextEncoder();
const pageHead = utf8.encode('{"data":[');

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

/** The list's read, answered by the router and by the read lane (middleware/read-route.ts). */
export function transactionReadRoutes(reads: TransactionReads, clock: Clock) {
  return [
    readRoute(
      listRoute,
      async ({ principal, param, query }) => {
        const accountId = param.account_id;
        const resolved = resolveTransactionQuery(query, accountId, clock.now());
        const page = await reads.listTransactions(
          principal.serviceAccountId,
          accountId,
          resolved,
          principal.dataGeneration,
        );
        // The rows' stored JSON, written as they are (the shape of transactionListSchema).
        const cursor = nextTransactionCursor(accountId, resolved, page);
        const tail = `],"next_cursor":${cursor === null ? "null" : JSON.stringify(cursor)}}`;
        return { body: joinedBytes(pageHead, page.json, utf8.encode(tail)) };
      },
      checkTransactionsQuery,
    ),
  ];
}
