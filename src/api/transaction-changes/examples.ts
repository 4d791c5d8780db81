// The examples of GET /v1/accounts/{account_id}/transactions/changes (shared/examples.ts),
// declared on its route.
import type { z } from "@hono/zod-openapi";
// The feed is read under its account: an unknown account is its 404.
import { unknownAccountExamples } from "../accounts/examples.ts";
import {
  badAccountIdExamples,
  badCursorExample,
  badLimitExamples,
  type DeclaredExamples,
  errorExample,
  exampleIds,
  unknownPageParameterExamples,
} from "../shared/examples.ts";
// The feed carries the transactions GET …/transactions serves: the same examples.
import { bookedExample, salaryExample } from "../transactions/examples.ts";
import { cursorExpired } from "./cursor.ts";
import type { transactionChangesSchema } from "./schema.ts";

export const listTransactionChangesExamples: DeclaredExamples = ({ retentionDays }) => ({
  ok: {
    summary: "A pending card payment booked and a transfer's text was corrected",
    value: {
      added: [bookedExample],
      modified: [{ ...salaryExample, description: "SALARY JANUARY EMPLOYER LTD" }],
      removed: [{ transaction_id: exampleIds.replacedPending }],
      next_cursor: "eyJ2IjoxLCJrIjoiY2hhbmdlcyIsInAiOiJjIn0",
      has_more: false,
    } satisfies z.infer<typeof transactionChangesSchema>,
  },
  errors: {
    "400": {
      ...badAccountIdExamples(),
      ...badLimitExamples(),
      ...unknownPageParameterExamples(),
      bad_cursor: badCursorExample("A cursor that was not a next_cursor (or another account's)"),
      cursor_expired: errorExample(
        `A cursor older than the ${retentionDays}-day retention: start again without one`,
        cursorExpired(retentionDays),
      ),
    },
    "404": unknownAccountExamples(),
  },
});
