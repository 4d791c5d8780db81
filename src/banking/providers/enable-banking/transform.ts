// Enable Banking's one `transform` step: its payloads (ISO 20022 / Berlin Group shaped, amounts
// as unsigned decimal strings with a CRDT/DBIT indicator) -> our model. Amounts stay text from
// end to end: never a float. A malformed payload is a provider failure naming the field.
import { createHash } from "node:crypto";
import { z } from "zod";
import {
  type AccountRecord,
  type AccountType,
  type BalanceRecord,
  parseProviderData,
  type TransactionRecord,
} from "../../model.ts";
import { isCurrencyCode, normalizeAmount } from "../../money.ts";
import { ProviderError } from "../errors.ts";

const unsignedAmount = /^\d+(?:\.\d+)?$/;
const money = z.object({
  currency: z.string().refine(isCurrencyCode, "not an ISO 4217 currency"),
  amount: z.string().trim().regex(unsignedAmount, "not an unsigned decimal amount"),
});
const date = z.iso.date();
const name = z
  .object({ name: z.string().trim().min(1).optional() })
  .partial()
  .optional();

export const ebAccountSchema = z.object({
  uid: z.string().min(1),
  /** Stable across sessions (Enable Banking: "can be used for matching accounts between
   * multiple sessions"), unlike `uid`, which a new session renews. */
  identification_hash: z.string().min(1).nullish(),
  account_id: z
    .object({ iban: z.string().optional(), masked_pan: z.string().optional() })
    .partial()
    .nullish(),
  name: z.string().trim().min(1).nullish(),
  details: z.string().trim().min(1).nullish(),
  product: z.string().trim().min(1).nullish(),
  cash_account_type: z.string().nullish(),
  currency: z.string().refine(isCurrencyCode, "not an ISO 4217 currency"),
});
export type EbAccount = z.infer<typeof ebAccountSchema>;

const balancesSchema = z.object({
  balances: z.array(
    z.object({
      balance_amount: money,
      balance_type: z.string(),
      reference_date: date.nullish(),
      last_change_date_time: z.iso.datetime({ offset: true }).nullish(),
    }),
  ),
});

const transactionSchema = z.object({
  entry_reference: z.string().min(1).nullish(),
  transaction_id: z.string().min(1).nullish(),
  transaction_amount: money,
  credit_debit_indicator: z.enum(["CRDT", "DBIT"]),
  status: z.string(),
  booking_date: date.nullish(),
  value_date: date.nullish(),
  transaction_date: date.nullish(),
  creditor: name.nullable(),
  debtor: name.nullable(),
  remittance_information: z.array(z.string()).nullish(),
});
export const ebTransactionsPageSchema = z.object({
  transactions: z.array(transactionSchema),
  continuation_key: z.string().min(1).nullish(),
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
  SVGS: "savings",
  CARD: "credit_card",
  LOAN: "loan",
};

export function transformEbAccount(raw: EbAccount): AccountRecord {
  const iban = raw.account_id?.iban?.replace(/\s+/g, "").toUpperCase();
  const validIban = iban && /^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$/.test(iban) ? iban : null;
  const digits = (validIban ?? raw.account_id?.masked_pan ?? "").replace(/[^0-9A-Za-z]/g, "");
  return {
    externalId: raw.uid,
    name: (raw.name ?? raw.product ?? raw.details ?? "Account").slice(0, 200),
    type: typeByCashAccountType[raw.cash_account_type ?? ""] ?? "other",
    currency: raw.currency,
    iban: validIban,
    mask: digits.length >= 4 ? digits.slice(-4) : null,
  };
}

// ISO 20022 balance types, most telling first: closing booked, interim booked, expected.
const currentOrder = ["CLBD", "ITBD", "XPCD", "OPBD", "PRCD", "OTHR"];
const availableOrder = ["ITAV", "CLAV", "FWAV"];

/** The account's balance; `fetchedAt` stands in when the bank gives no time. */
export function transformEbBalance(payload: unknown, fetchedAt: Date): BalanceRecord {
  const { balances } = parseEnableBanking(balancesSchema, payload, "balances");
  const pick = (order: string[]) =>
    order.map((type) => balances.find((b) => b.balance_type === type)).find(Boolean);
  const current = pick(currentOrder) ?? balances[0];
  if (!current) throw new ProviderError("unavailable", "Enable Banking sent no balance");
  const available = pick(availableOrder);
  const currency = current.balance_amount.currency;
  const asOf = current.last_change_date_time
    ? new Date(current.last_change_date_time)
    : current.reference_date
      ? new Date(`${current.reference_date}T00:00:00Z`)
      : fetchedAt;
  return {
    current: normalizeAmount(current.balance_amount.amount, currency),
    available:
      available && available.balance_amount.currency === currency
        ? normalizeAmount(available.balance_amount.amount, currency)
        : null,
    currency,
    asOf,
  };
}

const statusByEbStatus: Record<string, "booked" | "pending"> = { BOOK: "booked", PDNG: "pending" };

/** Signed amount: DBIT is money out (negative), CRDT money in. */
export function signedAmount(amount: string, indicator: "CRDT" | "DBIT", currency: string): string {
  return normalizeAmount(indicator === "DBIT" ? `-${amount}` : amount, currency);
}

/**
 * One transaction, or null for a status we do not store (INFO, OTHR). A row without an entry
 * reference or transaction id gets a stable id from its content, so re-reading it does not
 * duplicate it.
 */
export function transformEbTransaction(
  raw: z.infer<typeof transactionSchema>,
  fetchedDate: string,
): TransactionRecord | null {
  const status = statusByEbStatus[raw.status];
  if (!status) return null;
  const currency = raw.transaction_amount.currency;
  const amount = signedAmount(raw.transaction_amount.amount, raw.credit_debit_indicator, currency);
  const bookingDate =
    (status === "booked" ? raw.booking_date : undefined) ??
    raw.transaction_date ??
    raw.value_date ??
    raw.booking_date ??
    fetchedDate;
  // The other party: who was paid when money went out, who paid when it came in.
  const counterpartyName =
    (raw.credit_debit_indicator === "DBIT" ? raw.creditor?.name : raw.debtor?.name) ?? null;
  const remittance = raw.remittance_information?.map((line) => line.trim()).filter(Boolean);
  const description = (remittance?.join(" ") || counterpartyName || "Transaction").slice(0, 1000);
  const externalId =
    raw.entry_reference ??
    raw.transaction_id ??
    `eb-${createHash("sha256")
      .update(JSON.stringify([status, bookingDate, amount, currency, description]))
      .digest("hex")
      .slice(0, 32)}`;
  return {
    externalId,
    status,
    amount,
    currency,
    bookingDate,
    valueDate: raw.value_date ?? null,
    description,
    counterpartyName: counterpartyName?.slice(0, 200) ?? null,
    merchantName: null,
    pendingExternalId: null,
  };
}

export function transformEbTransactions(
  pages: EbTransactionsPage[],
  fetchedDate: string,
): TransactionRecord[] {
  return pages
    .flatMap((page) => page.transactions)
    .map((raw) => transformEbTransaction(raw, fetchedDate))
    .filter((row): row is TransactionRecord => row !== null);
}
