// The transaction rows both write paths (apply.ts for stable ids, write-matched.ts for real
// banks) build and store: a new row from a record, and the pending -> booked links.
import { eq } from "drizzle-orm";
import { chunks } from "../db/chunks.ts";
import type { Row } from "../db/schema.ts";
import type { Db } from "../db/store.ts";
import type { TransactionRecord } from "./model.ts";

export type TransactionRow = Row<"transactions">;
export type NewTransactionRow = Omit<TransactionRow, "json">;

/** The fields a later read may change: a stored row is updated when one differs. */
export const comparedFields = [
  "status",
  "amount",
  "currency",
  "bookingDate",
  "valueDate",
  "description",
  "counterpartyName",
  "merchantName",
] as const satisfies readonly (keyof TransactionRecord & keyof TransactionRow)[];

export function newTransactionRow(input: {
  id: string;
  accountId: string;
  externalId: string;
  record: TransactionRecord;
  pendingTransactionId: string | null;
  now: Date;
}): NewTransactionRow {
  const { record } = input;
  return {
    id: input.id,
    accountId: input.accountId,
    externalId: input.externalId,
    status: record.status,
    amount: record.amount,
    currency: record.currency,
    bookingDate: record.bookingDate,
    valueDate: record.valueDate,
    description: record.description,
    counterpartyName: record.counterpartyName,
    merchantName: record.merchantName,
    bookedTransactionId: null,
    pendingTransactionId: input.pendingTransactionId,
    removedAt: null,
    createdAt: input.now,
    updatedAt: input.now,
  };
}

/** Inserts the new rows, then points each replaced pending row at its booked row. */
export async function insertWithLinks(
  tx: Db,
  now: Date,
  inserts: NewTransactionRow[],
  links: { pendingId: string; bookedId: string }[],
): Promise<void> {
  const { transactions } = tx.t;
  for (const part of chunks(inserts)) await tx.insert(transactions).values(part);
  for (const link of links) {
    await tx
      .update(transactions)
      .set({ bookedTransactionId: link.bookedId, updatedAt: now })
      .where(eq(transactions.id, link.pendingId));
  }
}
