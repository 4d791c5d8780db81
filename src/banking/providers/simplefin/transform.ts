// SimpleFIN's one `transform` step (SimpleFIN protocol "Account Set"): accounts with their
// balance (balance-date, a Unix time, is when the bank computed it) and transactions (posted,
// amount, pending, transacted_at). Both protocol versions are read (docs/providers.md
// "SimpleFIN"): version 1 carries `errors` (strings) and `org` on each account; version 2 (the
// protocol's structured errors) carries `errlist` ({code, message, conn_id}) and `connections`,
// and no `org`. An account or row Svc cannot store (a custom currency such as a URL, a malformed
// amount) is skipped with a named reason, never failing the read. Amounts stay text.
import { z } from "zod";
import type { AccountRecord, BalanceRecord, TransactionRecord } from "../../model.ts";
import { parseProviderData } from "../../model.ts";
import { isCurrencyCode, isDecimalAmount, normalizeAmount } from "../../money.ts";
import { withoutUrlPaths } from "../../notice.ts";
import { providerText } from "../../provider-text.ts";
import { addSkip, type SkipReason, type SkipTally } from "../../skips.ts";
import { ProviderError } from "../errors.ts";

const loose = z.unknown();
/** Amounts are numeric strings; a bare JSON number is read as its text. */
const decimal = z.union([z.string(), z.number().transform(String)]).transform((t) => t.trim());
const unixTime = z.number().min(0).transform(Math.floor);

const transactionSchema = z.object({
  id: z.union([z.string(), z.number().transform(String)]).nullish(),
  posted: unixTime.nullish(),
  amount: decimal,
  description: z.string().nullish(),
  payee: z.string().nullish(),
  memo: z.string().nullish(),
  transacted_at: unixTime.nullish(),
  pending: z.boolean().nullish(),
});

const accountSchema = z.object({
  id: z.union([z.string(), z.number().transform(String)]),
  name: z.string().nullish(),
  currency: z.string(),
  balance: decimal,
  "available-balance": decimal.nullish(),
  "balance-date": unixTime,
  transactions: z.array(loose).nullish(),
});

const errEntry = z
  .object({ code: z.string().nullish(), message: z.string().nullish(), msg: z.string().nullish() })
  .partial();

/** The set as read: accounts and error entries are checked one by one. */
const accountSetSchema = z.object({
  errors: z.array(loose).nullish(),
  errlist: z.array(loose).nullish(),
  accounts: z.array(loose).nullish(),
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

export interface SimplefinMessage {
  /** Version 2's error code (con.auth, ...); null for version 1's plain strings. */
  code: string | null;
  text: string;
}

/** The messages for the user, from `errors` (v1) and `errlist` (v2), without repeats. */
export function simplefinMessages(set: SimplefinAccountSet): SimplefinMessage[] {
  const messages: SimplefinMessage[] = [];
  for (const value of set.errors ?? []) {
    const text = providerText(value, 500);
    if (text) messages.push({ code: null, text });
  }
  for (const value of set.errlist ?? []) {
    const entry = errEntry.safeParse(value);
    if (!entry.success) continue;
    const code = providerText(entry.data.code, 100);
    const text = providerText(entry.data.message ?? entry.data.msg, 500) ?? code;
    if (text) messages.push({ code, text });
  }
  const seen = new Set<string>();
  return messages.filter((m) => !seen.has(m.text) && seen.add(m.text));
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
  value: unknown,
  currency: string,
  fetchedDate: string,
): TransactionRecord | SkipReason {
  const parsed = transactionSchema.safeParse(value);
  if (!parsed.success || !isDecimalAmount(parsed.data.amount)) return "malformed_transaction";
  const raw = parsed.data;
  const posted = raw.posted ?? 0;
  // posted = 0 means not posted yet (the protocol's pending marker before `pending` existed).
  const pending = raw.pending === true || posted === 0;
  const bookingDate =
    posted > 0 ? utcDate(posted) : raw.transacted_at ? utcDate(raw.transacted_at) : fetchedDate;
  const payee = providerText(raw.payee, 200);
  return {
    externalId: providerText(raw.id, 200),
    status: pending ? "pending" : "booked",
    amount: normalizeAmount(raw.amount, currency),
    currency,
    bookingDate,
    valueDate: raw.transacted_at ? utcDate(raw.transacted_at) : null,
    description:
      providerText(raw.description, 1000) ?? payee ?? providerText(raw.memo, 1000) ?? "Transaction",
    counterpartyName: payee,
    merchantName: null,
    pendingExternalId: null,
  };
}

function transformAccount(
  value: unknown,
  fetchedDate: string,
  skipped: SkipTally,
): SimplefinAccountSnapshot | null {
  const parsed = accountSchema.safeParse(value);
  const id = parsed.success ? providerText(parsed.data.id, 200) : null;
  if (!parsed.success || !id) {
    addSkip(skipped, parsed.success ? "account_without_id" : "malformed_account");
    return null;
  }
  const raw = parsed.data;
  const currency = raw.currency.trim().toUpperCase();
  // The protocol allows custom currencies (a URL naming, say, flight miles): not money we hold.
  if (!isCurrencyCode(currency)) {
    addSkip(skipped, "unsupported_currency");
    return null;
  }
  if (!isDecimalAmount(raw.balance)) {
    addSkip(skipped, "malformed_account");
    return null;
  }
  const available = raw["available-balance"];
  const transactions: TransactionRecord[] = [];
  for (const row of raw.transactions ?? []) {
    const record = transformTransaction(row, currency, fetchedDate);
    if (typeof record === "string") addSkip(skipped, record);
    else transactions.push(record);
  }
  return {
    account: {
      externalId: id,
      name: providerText(raw.name, 200) ?? "Account",
      type: "other",
      currency,
      iban: null,
      mask: null,
    },
    balance: {
      current: normalizeAmount(raw.balance, currency),
      available:
        available && isDecimalAmount(available) ? normalizeAmount(available, currency) : null,
      currency,
      asOf: new Date(raw["balance-date"] * 1000),
    },
    transactions,
  };
}

/** The accounts of one read, each with its balance and transactions; skips go to `skipped`. */
export function transformAccountSet(
  set: SimplefinAccountSet,
  fetchedDate: string,
  skipped: SkipTally = {},
): SimplefinAccountSnapshot[] {
  return (set.accounts ?? []).flatMap((value) => {
    const snapshot = transformAccount(value, fetchedDate, skipped);
    return snapshot ? [snapshot] : [];
  });
}

/**
 * The messages of an account set as one provider error for the status table, or null; used
 * when no account came back. Version 2 names connection problems with a `con.` code (con.auth:
 * the user must sign in at the bank again); version 1 gives human-readable strings only, so
 * their intent is read from the words.
 */
export function errorsToProviderError(messages: SimplefinMessage[]): ProviderError | null {
  if (messages.length === 0) return null;
  const text = withoutUrlPaths(messages.map((m) => m.text).join("; ")).slice(0, 500);
  const codes = messages.map((m) => m.code ?? "");
  if (codes.some((c) => c.startsWith("con.auth")))
    return new ProviderError("consent_revoked", `SimpleFIN: ${text}`);
  if (/rate.?limit|too many|quota/i.test(text)) return new ProviderError("rate_limited", text);
  if (/re-?auth|authenticat|credential|password|log ?in|attention|consent/i.test(text))
    return new ProviderError("consent_revoked", `SimpleFIN: ${text}`);
  return new ProviderError("unavailable", `SimpleFIN: ${text}`);
}
