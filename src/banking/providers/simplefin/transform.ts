// SimpleFIN's one `transform` step (SimpleFIN protocol "Account Set"): accounts with their
// balance (balance-date, a Unix time, is when the bank computed it: our fetched_at source) and
// transactions (posted, amount, pending, transacted_at). Amounts arrive as decimal strings and
// stay text. Accounts in a currency that is not ISO 4217 (the protocol allows custom ones) are
// left out: our model holds ISO currencies only.
import { z } from "zod";
import {
  type AccountRecord,
  type BalanceRecord,
  parseProviderData,
  type TransactionRecord,
} from "../../model.ts";
import { isCurrencyCode, isDecimalAmount, normalizeAmount } from "../../money.ts";
import { ProviderError } from "../errors.ts";

const decimal = z.string().trim().refine(isDecimalAmount, "not a decimal amount");
const unixTime = z.number().int().min(0);

const transactionSchema = z.object({
  id: z.string().min(1),
  posted: unixTime,
  amount: decimal,
  description: z.string().optional(),
  payee: z.string().optional(),
  memo: z.string().optional(),
  transacted_at: unixTime.optional(),
  pending: z.boolean().optional(),
});

const accountSchema = z.object({
  org: z.object({ name: z.string().optional(), domain: z.string().optional() }).partial(),
  id: z.string().min(1),
  name: z.string().trim().min(1),
  currency: z.string(),
  balance: decimal,
  "available-balance": decimal.optional(),
  "balance-date": unixTime,
  transactions: z.array(transactionSchema).optional(),
});

export const accountSetSchema = z.object({
  errors: z.array(z.string()).default([]),
  accounts: z.array(accountSchema),
});
export type SimplefinAccountSet = z.infer<typeof accountSetSchema>;

export function parseAccountSet(payload: unknown): SimplefinAccountSet {
  return parseProviderData(
    accountSetSchema,
    payload,
    (problem) =>
      new ProviderError("unavailable", `SimpleFIN sent a malformed account set: ${problem}`),
  );
}

export interface SimplefinAccountSnapshot {
  account: AccountRecord;
  balance: BalanceRecord;
  transactions: TransactionRecord[];
}

function utcDate(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString().slice(0, 10);
}

function transformTransaction(
  raw: z.infer<typeof transactionSchema>,
  currency: string,
  fetchedDate: string,
): TransactionRecord {
  // posted = 0 means not posted yet (the protocol's pending marker before `pending` existed).
  const pending = raw.pending === true || raw.posted === 0;
  const bookingDate =
    raw.posted > 0
      ? utcDate(raw.posted)
      : raw.transacted_at
        ? utcDate(raw.transacted_at)
        : fetchedDate;
  const description = (raw.description?.trim() || raw.payee?.trim() || "Transaction").slice(
    0,
    1000,
  );
  return {
    externalId: raw.id.slice(0, 200),
    status: pending ? "pending" : "booked",
    amount: normalizeAmount(raw.amount, currency),
    currency,
    bookingDate,
    valueDate: raw.transacted_at ? utcDate(raw.transacted_at) : null,
    description,
    counterpartyName: raw.payee?.trim().slice(0, 200) || null,
    merchantName: null,
    pendingExternalId: null,
  };
}

/** The accounts of one read, each with its balance and transactions. */
export function transformAccountSet(
  set: SimplefinAccountSet,
  fetchedDate: string,
): SimplefinAccountSnapshot[] {
  return set.accounts
    .filter((raw) => isCurrencyCode(raw.currency))
    .map((raw) => ({
      account: {
        externalId: raw.id.slice(0, 200),
        name: raw.name.slice(0, 200),
        type: "other",
        currency: raw.currency,
        iban: null,
        mask: null,
      },
      balance: {
        current: normalizeAmount(raw.balance, raw.currency),
        available:
          raw["available-balance"] !== undefined
            ? normalizeAmount(raw["available-balance"], raw.currency)
            : null,
        currency: raw.currency,
        asOf: new Date(raw["balance-date"] * 1000),
      },
      transactions: (raw.transactions ?? []).map((t) =>
        transformTransaction(t, raw.currency, fetchedDate),
      ),
    }));
}

/**
 * The `errors` array of an account set as one provider error for the status table, or null.
 * The protocol gives human-readable strings meant for the user; we read their intent.
 */
export function errorsToProviderError(errors: string[]): ProviderError | null {
  if (errors.length === 0) return null;
  const text = errors.join("; ").slice(0, 500);
  if (/rate.?limit|too many|quota/i.test(text)) return new ProviderError("rate_limited", text);
  if (/re-?auth|authenticat|credential|password|log ?in|attention|consent/i.test(text))
    return new ProviderError("consent_revoked", `SimpleFIN: ${text}`);
  return new ProviderError("unavailable", `SimpleFIN: ${text}`);
}
