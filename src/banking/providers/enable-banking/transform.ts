// Enable Banking's one `transform` step: its payloads (ISO 20022 / Berlin Group shaped) -> our
// model. Everything its OpenAPI document allows is accepted (docs/providers.md "Enable
// Banking"): signed amounts (`^-?\d+(\.\d+)?$`, overdrafts and card debt), optional uid, ids,
// dates and parties, unknown enum values and extra fields. A row or account Svc cannot store is
// skipped with a named reason (skips.ts), never failing the page. Amounts stay text: never a
// float.
import { z } from "zod";
import { isCalendarDate } from "../../../core/dates.ts";
import type { AccountRecord, AccountType, BalanceRecord, TransactionRecord } from "../../model.ts";
import { parseProviderData } from "../../model.ts";
import { isCurrencyCode, isDecimalAmount, normalizeAmount } from "../../money.ts";
import { providerText } from "../../provider-text.ts";
import { addSkip, type SkipReason, type SkipTally } from "../../skips.ts";
import { ProviderError } from "../errors.ts";

const loose = z.unknown();
const money = z.object({ currency: loose, amount: loose }).partial();
const party = z.object({ name: loose }).partial().nullish().catch(null);

/** An account as the session lists it: uid, ids and even currency may be missing. */
export const ebAccountSchema = z.object({
  uid: z.string().nullish(),
  /** Stable across sessions (Enable Banking: "can be used for matching accounts between
   * multiple sessions"), unlike `uid`, which a new session renews. */
  identification_hash: z.string().min(1).nullish(),
  account_id: z
    .object({ iban: z.string().nullish(), masked_pan: z.string().nullish() })
    .partial()
    .nullish()
    .catch(null),
  name: z.string().nullish(),
  details: z.string().nullish(),
  product: z.string().nullish(),
  cash_account_type: z.string().nullish(),
  currency: z.string().nullish(),
});
export type EbAccount = z.infer<typeof ebAccountSchema>;

const balancesSchema = z.object({
  balances: z.array(
    z.object({
      balance_amount: money.nullish(),
      balance_type: z.string().nullish(),
      reference_date: z.string().nullish(),
      last_change_date_time: z.string().nullish(),
    }),
  ),
});

const transactionSchema = z.object({
  entry_reference: z.string().nullish(),
  transaction_id: z.string().nullish(),
  transaction_amount: money,
  credit_debit_indicator: z.string().nullish(),
  status: z.string().nullish(),
  booking_date: z.string().nullish(),
  value_date: z.string().nullish(),
  transaction_date: z.string().nullish(),
  creditor: party,
  debtor: party,
  remittance_information: z.array(loose).nullish().catch(null),
});

/** A page: each row is checked on its own (a malformed row is skipped, not the page). */
export const ebTransactionsPageSchema = z.object({
  transactions: z.array(loose).nullish(),
  continuation_key: z.string().nullish(),
});
export type EbTransactionsPage = z.infer<typeof ebTransactionsPageSchema>;

export function parseEnableBanking<T extends z.ZodType>(
  schema: T,
  payload: unknown,
  what: string,
): z.infer<T> {
  return parseProviderData(
    schema,
    payload,
    (problem) =>
      new ProviderError(
        "unavailable",
        `Enable Banking sent a malformed ${what} payload: ${problem}`,
      ),
  );
}

const typeByCashAccountType: Record<string, AccountType> = {
  CACC: "current",
  TRAN: "current",
  SVGS: "savings",
  CARD: "credit_card",
  LOAN: "loan",
};

/** An ISO 4217 code from a bank's text ("eur " -> "EUR"), or null. */
function currencyOf(value: unknown): string | null {
  const code = typeof value === "string" ? value.trim().toUpperCase() : "";
  return isCurrencyCode(code) ? code : null;
}

/** A signed decimal amount from a bank's text, normalised for its currency, or null. */
function amountOf(value: unknown, currency: string): string | null {
  const text = typeof value === "string" ? value.trim() : "";
  return isDecimalAmount(text) ? normalizeAmount(text, currency) : null;
}

/** A calendar date from a bank's date or date-time text, or null. */
function dateOf(value: unknown): string | null {
  const text = typeof value === "string" ? value.trim().slice(0, 10) : "";
  return isCalendarDate(text) ? text : null;
}

/** Our account, or why it cannot be stored (a blocked or closed account has no uid). */
export function transformEbAccount(raw: EbAccount): AccountRecord | SkipReason {
  const uid = providerText(raw.uid, 200);
  if (!uid) return "account_without_id";
  const currency = currencyOf(raw.currency);
  if (!currency) return "unsupported_currency";
  const iban = raw.account_id?.iban?.replace(/\s+/g, "").toUpperCase();
  const validIban = iban && /^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$/.test(iban) ? iban : null;
  const digits = (validIban ?? raw.account_id?.masked_pan ?? "").replace(/[^0-9A-Za-z]/g, "");
  return {
    externalId: uid,
    name:
      providerText(raw.name, 200) ??
      providerText(raw.product, 200) ??
      providerText(raw.details, 200) ??
      "Account",
    type: typeByCashAccountType[raw.cash_account_type?.trim().toUpperCase() ?? ""] ?? "other",
    currency,
    iban: validIban,
    mask: digits.length >= 4 ? digits.slice(-4) : null,
  };
}

/** The accounts Svc can read; the others are counted in `skipped`. */
export function usableEbAccounts(accounts: EbAccount[], skipped: SkipTally = {}): AccountRecord[] {
  const usable: AccountRecord[] = [];
  for (const raw of accounts) {
    const account = transformEbAccount(raw);
    if (typeof account === "string") addSkip(skipped, account);
    else usable.push(account);
  }
  return usable;
}

// ISO 20022 balance types, most telling first: closing booked, interim booked, expected.
const currentOrder = ["CLBD", "ITBD", "XPCD", "OPBD", "PRCD", "VALU", "OTHR", "INFO"];
const availableOrder = ["ITAV", "CLAV", "FWAV", "OPAV"];

/**
 * The account's balance (signed: an overdraft or card debt is negative), or null when the bank
 * sends none Svc can read; `fetchedAt` stands in when the bank gives no time.
 */
export function transformEbBalance(payload: unknown, fetchedAt: Date): BalanceRecord | null {
  const { balances } = parseEnableBanking(balancesSchema, payload, "balances");
  const usable = balances.flatMap((b) => {
    const currency = currencyOf(b.balance_amount?.currency);
    const amount = currency ? amountOf(b.balance_amount?.amount, currency) : null;
    const type = b.balance_type?.trim().toUpperCase() ?? "";
    return currency && amount !== null ? [{ ...b, currency, amount, type }] : [];
  });
  const pick = (order: string[]) =>
    order.map((type) => usable.find((b) => b.type === type)).find(Boolean);
  const current = pick(currentOrder) ?? usable[0];
  if (!current) return null;
  const available = pick(availableOrder);
  const changed = current.last_change_date_time ? Date.parse(current.last_change_date_time) : NaN;
  const referenceDate = dateOf(current.reference_date);
  return {
    current: current.amount,
    available: available && available.currency === current.currency ? available.amount : null,
    currency: current.currency,
    asOf: !Number.isNaN(changed)
      ? new Date(changed)
      : referenceDate
        ? new Date(`${referenceDate}T00:00:00Z`)
        : fetchedAt,
  };
}

/** BOOK is booked; PDNG and HOLD (an authorisation hold) are pending; the rest moved no money. */
const statusByEbStatus: Record<string, "booked" | "pending"> = {
  BOOK: "booked",
  PDNG: "pending",
  HOLD: "pending",
};
const notMoneyMovement = new Set(["CNCL", "RJCT", "SCHD", "OTHR", "INFO"]);

/**
 * Signed amount: the direction comes from the indicator (DBIT is money out, negative) and the
 * magnitude from the amount, whatever sign the bank wrote on it.
 */
function signedAmount(amount: string, indicator: "CRDT" | "DBIT", currency: string): string {
  const magnitude = amount.replace(/^[+-]/, "");
  return normalizeAmount(indicator === "DBIT" ? `-${magnitude}` : magnitude, currency);
}

/** One row of a page as our transaction, or the named reason it is skipped. */
export function transformEbTransaction(
  value: unknown,
  fetchedDate: string,
): TransactionRecord | SkipReason {
  const parsed = transactionSchema.safeParse(value);
  if (!parsed.success) return "malformed_transaction";
  const raw = parsed.data;
  const ebStatus = raw.status?.trim().toUpperCase() ?? "";
  const status = statusByEbStatus[ebStatus];
  if (!status) return notMoneyMovement.has(ebStatus) ? "not_money_movement" : "unknown_status";
  const currency = currencyOf(raw.transaction_amount.currency);
  if (!currency) return "unsupported_currency";
  const magnitude = amountOf(raw.transaction_amount.amount, currency);
  if (magnitude === null) return "malformed_transaction";
  const indicator = raw.credit_debit_indicator?.trim().toUpperCase();
  if (indicator !== "CRDT" && indicator !== "DBIT") return "unknown_direction";
  const amount = signedAmount(magnitude, indicator, currency);
  const booking = dateOf(raw.booking_date);
  const transactionDate = dateOf(raw.transaction_date);
  const valueDate = dateOf(raw.value_date);
  const bookingDate =
    (status === "booked" ? booking : null) ??
    transactionDate ??
    valueDate ??
    booking ??
    fetchedDate;
  // The other party: who was paid when money went out, who paid when it came in.
  const counterpartyName = providerText(
    (indicator === "DBIT" ? raw.creditor : raw.debtor)?.name,
    200,
  );
  const remittance = (raw.remittance_information ?? [])
    .map((line) => providerText(line, 1000))
    .filter(Boolean)
    .join(" ");
  return {
    // entry_reference is the bank's archive id; transaction_id "can not be used to uniquely
    // identify transactions and may change if the list of transactions is retrieved again"
    // (OpenAPI), so it is never an identity. Even entry_reference is a hint (identity.ts).
    externalId: providerText(raw.entry_reference, 200),
    status,
    amount,
    currency,
    bookingDate,
    valueDate,
    description: providerText(remittance, 1000) ?? counterpartyName ?? "Transaction",
    counterpartyName,
    merchantName: null,
    pendingExternalId: null,
  };
}

/** Every page's rows as our transactions; the rows skipped are counted in `skipped`. */
export function transformEbTransactions(
  pages: EbTransactionsPage[],
  fetchedDate: string,
  skipped: SkipTally = {},
): TransactionRecord[] {
  const records: TransactionRecord[] = [];
  for (const value of pages.flatMap((page) => page.transactions ?? [])) {
    const record = transformEbTransaction(value, fetchedDate);
    if (typeof record === "string") addSkip(skipped, record);
    else records.push(record);
  }
  return records;
}
