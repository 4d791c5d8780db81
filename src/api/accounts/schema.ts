// The account and its balance as /v1 serves them (spec 2).
import { z } from "@hono/zod-openapi";
import {
  currencySchema,
  idSchema,
  moneySchema,
  nextCursorSchema,
  timestampSchema,
} from "../shared/schema.ts";

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
