// A transaction as /v1 serves it (spec 2), and a page of them.
import { z } from "@hono/zod-openapi";
import { transactionStatuses } from "../../db/schema.ts";
import {
  currencySchema,
  dateSchema,
  idSchema,
  moneySchema,
  nextCursorSchema,
} from "../shared/schema.ts";

export const transactionSchema = z
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
