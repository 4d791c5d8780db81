// The operator ingest format (README "Operator ingest format"): one JSON document holding
// connections with their status, accounts, balances and transactions. The same schema serves
// `svc import` and the operator HTTP route. Ids are the operator's own stable ids; importing
// the same document again changes nothing. Objects are strict, so a misspelt field is reported
// instead of silently ignored.
import { z } from "zod";
import {
  accountTypes,
  amountSchema,
  connectionStatusSchema,
  currencySchema,
  dateSchema,
  externalIdSchema,
} from "../model.ts";

const name = (max: number) => z.string().trim().min(1, "must not be empty").max(max);

const importTransactionSchema = z
  .object({
    id: externalIdSchema,
    status: z.enum(["booked", "pending"]),
    amount: amountSchema,
    /** Defaults to the account's currency. */
    currency: currencySchema.optional(),
    booking_date: dateSchema,
    value_date: dateSchema.nullish(),
    description: name(1000),
    counterparty_name: name(200).nullish(),
    merchant_name: name(200).nullish(),
    /** On a booked transaction: the id of the pending transaction it replaces. */
    pending_id: externalIdSchema.nullish(),
  })
  .strict();

const importBalanceSchema = z
  .object({
    current: amountSchema,
    available: amountSchema.nullish(),
    /** When the bank computed the balance (ISO 8601 with offset). */
    as_of: z.iso.datetime({ offset: true, error: "must be an ISO 8601 timestamp" }),
  })
  .strict();

const importAccountSchema = z
  .object({
    id: externalIdSchema,
    name: name(200),
    type: z.enum(accountTypes),
    currency: currencySchema,
    iban: z
      .string()
      .transform((value) => value.replaceAll(" ", "").toUpperCase())
      .pipe(z.string().regex(/^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$/, "must be an IBAN"))
      .nullish(),
    /** Last digits shown to people; derived from the IBAN when omitted. */
    mask: z
      .string()
      .regex(/^[0-9A-Za-z]{2,8}$/, "must be 2 to 8 letters or digits")
      .nullish(),
    balance: importBalanceSchema.optional(),
    transactions: z.array(importTransactionSchema).default([]),
  })
  .strict();

const importConnectionSchema = z
  .object({
    id: externalIdSchema,
    institution: name(200),
    status: connectionStatusSchema,
    /** Shown to operators when the status is `error`. */
    error: name(500).nullish(),
    accounts: z.array(importAccountSchema).default([]),
  })
  .strict();

export const importDocumentSchema = z
  .object({
    connections: z.array(importConnectionSchema).min(1, "must list at least one connection"),
  })
  .strict();

export type ImportDocument = z.infer<typeof importDocumentSchema>;
