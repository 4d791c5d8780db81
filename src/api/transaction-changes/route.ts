// GET /v1/accounts/{account_id}/transactions/changes: what changed in an account's transactions
// since a cursor (read.ts), so a receiver keeps an exact copy.
import { createRoute } from "@hono/zod-openapi";
import type { Clock } from "../../core/clock.ts";
import { readRoute } from "../middleware/read-route.ts";
import { operationExamples } from "../shared/examples.ts";
import { accountPathParams, defaultPageLimit, pageQuery } from "../shared/params.ts";
import {
  authErrorResponses,
  changesRequestResponse,
  conditionalReadHeaders,
  notFoundResponse,
  okResponse,
} from "../shared/responses.ts";
import { decodeChangesCursor, encodeChangesCursor } from "./cursor.ts";
import { listTransactionChangesExamples } from "./examples.ts";
import type { TransactionChangeReads } from "./read.ts";
import { transactionChangesSchema } from "./schema.ts";

function changesRoute(retentionDays: number) {
  return createRoute({
    method: "get",
    path: "/accounts/{account_id}/transactions/changes",
    operationId: "listTransactionChanges",
    [operationExamples]: listTransactionChangesExamples,
    tags: ["Transactions"],
    summary: "List what changed in an account's transactions",
    description: `Keeps a copy of the account's transactions exact (what \`GET …/transactions?include_pending=true\` serves, over all dates). Without \`cursor\` the answer starts with every current transaction as \`added\`, page by page; then, and with a stored cursor, every change since it, in commit order: each transaction at most once per page, in its latest state. A pending transaction that books appears as \`removed\` (the pending id) and \`added\` (the booked row, \`pending_transaction_id\` set); one the bank stopped reporting is \`removed\`; an edit of amount, dates, text or status is \`modified\`. While \`has_more\` is true call again at once with \`next_cursor\`; when false, store \`next_cursor\` and call again later (on \`account.transactions.available\`). A cursor is valid for ${retentionDays} days (the retention period); an older one answers 400 \`cursor_expired\`: start again without a cursor. A cursor of another account answers 400 \`invalid_request\`. \`limit\` bounds the changes read per page (default ${defaultPageLimit}).`,
    request: { headers: conditionalReadHeaders, params: accountPathParams, query: pageQuery },
    responses: {
      ...okResponse(transactionChangesSchema, "A page of changes."),
      ...changesRequestResponse,
      ...authErrorResponses,
      ...notFoundResponse,
    },
  });
}

/** The change feed's read, answered by the router and by the read lane (middleware/read-route.ts). */
export function transactionChangeReadRoutes(
  reads: TransactionChangeReads,
  deps: { clock: Clock; retentionDays: number },
) {
  return [
    readRoute(changesRoute(deps.retentionDays), async ({ principal, param, query }) => {
      const accountId = param.account_id;
      const now = deps.clock.now();
      const from =
        query.cursor !== undefined
          ? decodeChangesCursor(query.cursor, accountId, now, deps.retentionDays)
          : await reads.feedStart(accountId);
      const page = await reads.readChanges(
        principal.serviceAccountId,
        accountId,
        from,
        query.limit ?? defaultPageLimit,
      );
      const removed = page.removed
        .map((id) => `{"transaction_id":${JSON.stringify(id)}}`)
        .join(",");
      const cursor = encodeChangesCursor(accountId, page.next, now);
      // The answer moves with time (a cursor expires): never remembered.
      return {
        body: `{"added":[${page.added}],"modified":[${page.modified}],"removed":[${removed}],"next_cursor":${JSON.stringify(cursor)},"has_more":${page.hasMore}}`,
        unremembered: true,
      };
    }),
  ];
}
