// A page of the change feed: the transactions added, modified and removed since a cursor.
import { z } from "@hono/zod-openapi";
import { idSchema } from "../shared/schema.ts";
// The feed carries transactions as /v1 serves them: the transactions resource's own shape.
import { transactionSchema } from "../transactions/schema.ts";

export const transactionChangesSchema = z
  .strictObject({
    added: z.array(transactionSchema).openapi({
      description:
        "Transactions you do not have yet (without a cursor: every current transaction), in their latest state. A pending transaction that booked arrives here as the booked row, with `pending_transaction_id` set.",
    }),
    modified: z.array(transactionSchema).openapi({
      description:
        "Transactions you have whose amount, dates, text or status changed, in their latest state: replace your copy.",
    }),
    removed: z
      .array(
        z.strictObject({
          transaction_id: idSchema.openapi({
            description: "Delete this transaction from your copy.",
          }),
        }),
      )
      .openapi({
        description:
          "Transactions no longer served: a pending transaction that booked (its booked row is in `added`) or that the bank stopped reporting.",
      }),
    next_cursor: z.string().openapi({
      description:
        "Where the next call starts. With `has_more` true call again at once; with false store it and call again later (e.g. on `account.transactions.available`). Valid for the retention period. Opaque.",
    }),
    has_more: z.boolean().openapi({
      description: "True: more changes are ready now, call again at once with `next_cursor`.",
    }),
  })
  .openapi("TransactionChanges");
