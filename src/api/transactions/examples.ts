// The examples of GET /v1/accounts/{account_id}/transactions (shared/examples.ts), declared on
// its route; the change feed shows the same transactions.
import type { z } from "@hono/zod-openapi";
// A transaction is read under its account: an unknown account is its 404.
import { unknownAccountExamples } from "../accounts/examples.ts";
import {
  badAccountIdExamples,
  badLimitExamples,
  type DeclaredExamples,
  errorExample,
  exampleIds,
  refusal,
  thrown,
} from "../shared/examples.ts";
import { maxWindowDays, resolveDateWindow } from "./date-window.ts";
import { transactionsQuery } from "./query.ts";
import type { transactionListSchema } from "./schema.ts";

type TransactionExample = z.infer<typeof transactionListSchema>["data"][number];

/** A card payment that booked, replacing its pending row. */
export const bookedExample: TransactionExample = {
  transaction_id: exampleIds.bookedTransaction,
  account_id: exampleIds.account,
  status: "booked",
  amount: "-42.50",
  currency: "EUR",
  booking_date: "2026-01-14",
  value_date: "2026-01-14",
  description: "CARD PAYMENT CORNER SHOP",
  counterparty_name: null,
  merchant_name: "Corner Shop",
  pending_transaction_id: exampleIds.replacedPending,
  booked_transaction_id: null,
};

export const salaryExample: TransactionExample = {
  transaction_id: "4e5f6071-8293-4a4b-8c5d-6e7f8091a2b3",
  account_id: exampleIds.account,
  status: "booked",
  amount: "2500.00",
  currency: "EUR",
  booking_date: "2026-01-13",
  value_date: "2026-01-13",
  description: "SALARY JANUARY",
  counterparty_name: "Employer Ltd",
  merchant_name: null,
  pending_transaction_id: null,
  booked_transaction_id: null,
};

export const listTransactionsExamples: DeclaredExamples = () => ({
  ok: {
    summary: "A page with a pending and a booked transaction",
    value: {
      data: [
        {
          transaction_id: exampleIds.pendingTransaction,
          account_id: exampleIds.account,
          status: "pending",
          amount: "-12.99",
          currency: "EUR",
          booking_date: "2026-01-15",
          value_date: null,
          description: "CARD PAYMENT STREAMING SERVICE",
          counterparty_name: null,
          merchant_name: "Streaming Service",
          pending_transaction_id: null,
          booked_transaction_id: null,
        },
        bookedExample,
        salaryExample,
      ],
      next_cursor: null,
    } satisfies z.infer<typeof transactionListSchema>,
  },
  errors: {
    "400": {
      ...badAccountIdExamples(),
      bad_date: errorExample(
        "A date that is not YYYY-MM-DD",
        refusal(transactionsQuery, { from: "15.01.2026" }),
      ),
      window_too_long: errorExample(
        `A window of more than ${maxWindowDays} days`,
        thrown(() =>
          resolveDateWindow(new Date("2026-01-15T00:00:00Z"), {
            from: "2023-01-01",
            to: "2026-01-15",
          }),
        ),
      ),
      unknown_parameter: errorExample(
        "A misspelt parameter",
        refusal(transactionsQuery, { include_pendng: "true" }),
      ),
      ...badLimitExamples(),
    },
    "404": unknownAccountExamples(),
  },
});
