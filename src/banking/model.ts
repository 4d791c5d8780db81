// Our bank-data model as providers hand it to the sync path, after their `transform` step.
// It mirrors the columns of bank_accounts, balances and transactions (src/db/schema.ts):
// amounts are signed decimal strings (positive = money in), currencies ISO 4217, dates
// YYYY-MM-DD.
import { z } from "zod";
import { isCalendarDate } from "../core/dates.ts";
import { type ConnectionStatus, connectionStatuses, transactionStatuses } from "../db/schema.ts";
import { isCurrencyCode, isDecimalAmount } from "./money.ts";
import type { SkipTally } from "./skips.ts";

/**
 * Parses provider data, or throws the error `fail` builds from the first problem, written as
 * "<path>: <reason>" (provider payloads are checked before anything is stored).
 */
export function parseProviderData<T extends z.ZodType>(
  schema: T,
  value: unknown,
  fail: (problem: string) => Error,
): z.infer<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw fail(`${issue?.path.join(".") || "(root)"}: ${issue?.message}`);
}

export const accountTypes = [
  "current",
  "savings",
  "credit_card",
  "loan",
  "investment",
  "other",
] as const;
export type AccountType = (typeof accountTypes)[number];

const text = (max: number) => z.string().trim().min(1, "must not be empty").max(max);
export const externalIdSchema = text(200).describe("the provider's stable id");
export const currencySchema = z
  .string()
  .refine(isCurrencyCode, "must be an ISO 4217 currency code such as EUR");
export const amountSchema = z
  .string()
  .refine(isDecimalAmount, 'must be a signed decimal string such as "-12.30"');
export const dateSchema = z
  .string()
  .refine(isCalendarDate, "must be a calendar date written YYYY-MM-DD");
export const connectionStatusSchema = z.enum(connectionStatuses);

export const accountRecordSchema = z.object({
  externalId: externalIdSchema,
  name: text(200),
  type: z.enum(accountTypes),
  currency: currencySchema,
  iban: z
    .string()
    .regex(/^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$/, "must be an IBAN without spaces")
    .nullable(),
  mask: z
    .string()
    .regex(/^[0-9A-Za-z]{2,8}$/, "must be 2 to 8 letters or digits")
    .nullable(),
});
export type AccountRecord = z.infer<typeof accountRecordSchema>;

export const balanceRecordSchema = z.object({
  current: amountSchema,
  available: amountSchema.nullable(),
  currency: currencySchema,
  /** When the bank computed the balance. */
  asOf: z.date(),
});
export type BalanceRecord = z.infer<typeof balanceRecordSchema>;

export const transactionRecordSchema = z.object({
  /**
   * The provider's id for the row, when it gave one. Sandbox and import ids are stable keys;
   * real banks' ids are hints (src/banking/identity.ts).
   */
  externalId: externalIdSchema.nullable(),
  status: z.enum(transactionStatuses),
  amount: amountSchema,
  currency: currencySchema,
  bookingDate: dateSchema,
  valueDate: dateSchema.nullable(),
  description: text(1000),
  counterpartyName: text(200).nullable(),
  merchantName: text(200).nullable(),
  /** On a booked row: the provider id of the pending row it replaces (kept as a link). */
  pendingExternalId: externalIdSchema.nullable(),
});
export type TransactionRecord = z.infer<typeof transactionRecordSchema>;

/** One account as a provider reports it in one read. */
export interface AccountSnapshot {
  account: AccountRecord;
  /** Absent when the provider gave no balance (operator ingest may omit it). */
  balance?: BalanceRecord;
  transactions: TransactionRecord[];
}

/**
 * What one read of a connection found: its status and, when data could be read, its accounts.
 * `accounts` lists every account the connection carries; accounts not listed are kept.
 */
export interface ConnectionSnapshot {
  status: ConnectionStatus;
  /** Why the connection is in `error`, shown to operators; cleared by a good read. */
  error?: string | null;
  accounts?: AccountSnapshot[];
  /**
   * A pull's transaction window: `from` (YYYY-MM-DD) or null for the whole history the provider
   * holds. Real banks' pending rows in it that the answer no longer carries are removed.
   */
  window?: { from: string | null };
  /** The connection's new notice (src/banking/notice.ts); undefined leaves it as it is. */
  notice?: string | null;
  /** What the read skipped, by reason (counted by the sync's metrics). */
  skipped?: SkipTally;
}
