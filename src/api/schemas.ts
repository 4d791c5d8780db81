// The /v1 resource shapes (spec 2), defined once in zod: the OpenAPI document
// is generated from them and the tests validate real responses against that document.
import { z } from "@hono/zod-openapi";
import { connectionStatuses, transactionStatuses } from "../db/schema.ts";

export const idSchema = z.guid().openapi({
  description: "A UUID.",
  example: "3f1c2a4e-8d9b-4c7e-9a51-0b6d2e7f4a10",
});

const moneySchema = z
  .string()
  .regex(/^-?\d+(\.\d+)?$/)
  .openapi({
    description: "A signed decimal string (never a float); positive = money in.",
    example: "-42.50",
  });

const currencySchema = z
  .string()
  .regex(/^[A-Z]{3}$/)
  .openapi({ description: "ISO 4217 currency code.", example: "EUR" });

export const timestampSchema = z.iso.datetime().openapi({
  description: "RFC 3339 timestamp in UTC with milliseconds.",
  example: "2026-01-15T09:00:00.000Z",
});

const dateSchema = z.iso.date().openapi({
  description: "A calendar date, YYYY-MM-DD.",
  example: "2026-01-15",
});

export const nextCursorSchema = z.string().nullable().openapi({
  description:
    "Pass as `cursor` to get the next page; null on the last page. Opaque: do not build or edit it.",
  example: null,
});

export const accountSchema = z
  .strictObject({
    account_id: idSchema,
    connection_id: idSchema.openapi({ description: "The connection that carries the account." }),
    name: z.string().openapi({ example: "Everyday current account" }),
    type: z.string().openapi({
      description: "Kind of account as the bank reports it, e.g. current, savings, credit_card.",
      example: "current",
    }),
    currency: currencySchema,
    iban: z.string().nullable().openapi({ example: "DE89370400440532013000" }),
    mask: z
      .string()
      .nullable()
      .openapi({ description: "Last digits of the account number.", example: "3000" }),
    institution: z.string().openapi({ example: "Sandbox Bank" }),
  })
  .openapi("Account");

export const accountListSchema = z
  .strictObject({ data: z.array(accountSchema), next_cursor: nextCursorSchema })
  .openapi("AccountList");

export const balanceSchema = z
  .strictObject({
    account_id: idSchema,
    current: moneySchema.openapi({ description: "Booked balance.", example: "1520.75" }),
    available: moneySchema
      .nullable()
      .openapi({ description: "Available funds, when the bank reports them.", example: "1400.00" }),
    currency: currencySchema,
    as_of: timestampSchema.openapi({ description: "When the bank says the balance was valid." }),
    fetched_at: timestampSchema.openapi({
      description:
        "When the service fetched this balance; the same string as `fetched_at` in the account.balance.updated event.",
    }),
  })
  .openapi("Balance");

const transactionSchema = z
  .strictObject({
    transaction_id: idSchema.openapi({
      description: "Stable id of this transaction: de-duplicate on it.",
    }),
    account_id: idSchema,
    status: z.enum(transactionStatuses).openapi({ example: "booked" }),
    amount: moneySchema,
    currency: currencySchema,
    booking_date: dateSchema,
    value_date: dateSchema.nullable(),
    description: z.string().openapi({ example: "CARD PAYMENT CORNER SHOP" }),
    counterparty_name: z.string().nullable().openapi({ example: null }),
    merchant_name: z.string().nullable().openapi({ example: "Corner Shop" }),
    pending_transaction_id: idSchema.nullable().openapi({
      description:
        "On a booked transaction that replaced a pending one: the pending transaction's id (the two are one payment; the booked one is what counts). Otherwise null.",
      example: null,
    }),
    booked_transaction_id: idSchema.nullable().openapi({
      description:
        "On a pending transaction that has booked: the booked transaction's id. Such pending rows are no longer served, so a served row has null here; it is there for the link's other end.",
      example: null,
    }),
  })
  .openapi("Transaction");

export const transactionListSchema = z
  .strictObject({ data: z.array(transactionSchema), next_cursor: nextCursorSchema })
  .openapi("TransactionList");

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

export const connectionSchema = z
  .strictObject({
    connection_id: idSchema,
    status: z.enum(connectionStatuses).openapi({ example: "linked" }),
    account_ids: z
      .array(idSchema)
      .openapi({ description: "Every account the connection carries." }),
    institution: z.string().openapi({ example: "Sandbox Bank" }),
    created_at: timestampSchema,
    last_synced_at: timestampSchema
      .nullable()
      .openapi({ description: "When the last successful sync finished." }),
    error: z
      .string()
      .nullable()
      .openapi({ description: "Why the connection is in `error`, when it is.", example: null }),
    notice: z.string().nullable().openapi({
      description:
        "The bank's latest message to the user (for example that they must sign in at the bank again) and what the last sync left out of the bank's answer (for example \"1 account without an identifier was skipped\"); null when there is nothing to say. Shown even while the connection is `linked`; never a secret or URL path.",
      example: "1 account without an identifier was skipped",
    }),
    consent_expires_at: timestampSchema.nullable().openapi({
      description:
        "When the bank consent behind the connection ends (UTC); null when the connection has no consent that ends (sandbox, operator ingest, SimpleFIN). The owner is e-mailed 7 days and 1 day before; after it the connection moves to `expired` until it is renewed.",
    }),
  })
  .openapi("Connection");

export const connectionListSchema = z
  .strictObject({ data: z.array(connectionSchema), next_cursor: nextCursorSchema })
  .openapi("ConnectionList");
