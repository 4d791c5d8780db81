// The sandbox provider's one `transform` step: its PSD2-style payloads -> our model. The
// payloads are validated first, as any provider's would be: a malformed payload is a provider
// failure with a message naming the field, never a half-read account.
import { z } from "zod";
import {
  type AccountRecord,
  type AccountType,
  type BalanceRecord,
  parseProviderData,
  type TransactionRecord,
} from "../model.ts";
import { isCurrencyCode, isDecimalAmount, normalizeAmount } from "../money.ts";
import type { RawAccountsPayload, RawBalancesPayload, RawTransactionsPayload } from "./bank.ts";

const amount = z.object({
  amount: z.string().refine(isDecimalAmount, "not a decimal amount"),
  currency: z.string().refine(isCurrencyCode, "not an ISO 4217 currency"),
});
const date = z.iso.date();
const optionalText = z.string().trim().min(1).optional();

const accountsSchema = z.object({
  accounts: z.array(
    z.object({
      resourceId: z.string().min(1),
      iban: z.string().optional(),
      maskedPan: z.string().optional(),
      currency: z.string().refine(isCurrencyCode, "not an ISO 4217 currency"),
      name: z.string().min(1),
      product: z.string(),
      cashAccountType: z.string(),
    }),
  ),
});
const balancesSchema = z.object({
  balances: z.array(
    z.object({
      balanceType: z.string(),
      balanceAmount: amount,
      lastChangeDateTime: z.iso.datetime({ offset: true }),
    }),
  ),
});
const transactionSchema = z.object({
  transactionId: z.string().min(1),
  bookingDate: date.optional(),
  valueDate: date.optional(),
  transactionAmount: amount,
  creditorName: optionalText,
  debtorName: optionalText,
  remittanceInformationUnstructured: optionalText,
  merchantName: optionalText,
  pendingTransactionId: optionalText,
});
const transactionsSchema = z.object({
  transactions: z.object({
    booked: z.array(transactionSchema),
    pending: z.array(transactionSchema),
  }),
});

/** A payload the sandbox bank should never send; raised as a provider failure. */
export class SandboxPayloadError extends Error {
  override name = "SandboxPayloadError";
}

function parse<T extends z.ZodType>(schema: T, payload: unknown, what: string): z.infer<T> {
  return parseProviderData(
    schema,
    payload,
    (problem) =>
      new SandboxPayloadError(`sandbox bank sent a malformed ${what} payload: ${problem}`),
  );
}

const accountTypeByCashAccountType: Record<string, AccountType> = {
  CACC: "current",
  SVGS: "savings",
  CARD: "credit_card",
};

export function transformAccounts(payload: RawAccountsPayload | unknown): AccountRecord[] {
  return parse(accountsSchema, payload, "accounts").accounts.map((raw) => {
    const digits = (raw.iban ?? raw.maskedPan ?? "").replace(/[^0-9A-Za-z]/g, "");
    return {
      externalId: raw.resourceId,
      name: raw.name,
      type: accountTypeByCashAccountType[raw.cashAccountType] ?? "other",
      currency: raw.currency,
      iban: raw.iban ?? null,
      mask: digits.length >= 4 ? digits.slice(-4) : null,
    };
  });
}

export function transformBalance(payload: RawBalancesPayload | unknown): BalanceRecord {
  const { balances } = parse(balancesSchema, payload, "balances");
  const booked = balances.find((b) => b.balanceType === "interimBooked") ?? balances[0];
  if (!booked) throw new SandboxPayloadError("sandbox bank sent no balance");
  const available = balances.find((b) => b.balanceType === "interimAvailable");
  const currency = booked.balanceAmount.currency;
  return {
    current: normalizeAmount(booked.balanceAmount.amount, currency),
    available: available ? normalizeAmount(available.balanceAmount.amount, currency) : null,
    currency,
    asOf: new Date(booked.lastChangeDateTime),
  };
}

function transformTransaction(
  raw: z.infer<typeof transactionSchema>,
  status: "booked" | "pending",
): TransactionRecord {
  const amountText = normalizeAmount(raw.transactionAmount.amount, raw.transactionAmount.currency);
  const bookingDate = (status === "booked" ? raw.bookingDate : undefined) ?? raw.valueDate;
  if (!bookingDate)
    throw new SandboxPayloadError(
      `sandbox bank sent transaction ${raw.transactionId} without a date`,
    );
  // The other party: who was paid when money went out, who paid when it came in.
  const counterpartyName = amountText.startsWith("-")
    ? (raw.creditorName ?? raw.debtorName)
    : (raw.debtorName ?? raw.creditorName);
  return {
    externalId: raw.transactionId,
    status,
    amount: amountText,
    currency: raw.transactionAmount.currency,
    bookingDate,
    valueDate: raw.valueDate ?? null,
    description:
      raw.remittanceInformationUnstructured ??
      raw.merchantName ??
      counterpartyName ??
      "Transaction",
    counterpartyName: counterpartyName ?? null,
    merchantName: raw.merchantName ?? null,
    pendingExternalId: status === "booked" ? (raw.pendingTransactionId ?? null) : null,
  };
}

export function transformTransactions(
  payload: RawTransactionsPayload | unknown,
): TransactionRecord[] {
  const { transactions } = parse(transactionsSchema, payload, "transactions");
  return [
    ...transactions.booked.map((raw) => transformTransaction(raw, "booked")),
    ...transactions.pending.map((raw) => transformTransaction(raw, "pending")),
  ];
}
