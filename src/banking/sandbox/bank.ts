// The sandbox bank's own API: PSD2-style JSON payloads (Berlin Group NextGenPSD2 shapes) with
// the sandbox's extensions `merchantName` and `pendingTransactionId`. It speaks its own format
// on purpose: `transform.ts` maps it into our model exactly as a real provider's would be.
import { dayNumber, dayStart, toDateString } from "../../core/dates.ts";
import { formatMinorUnits } from "../money.ts";
import { activityBetween, balanceActivity, maxBookingLagMs, type SandboxItem } from "./activity.ts";
import type { SandboxAccount, SandboxAccountCode, SandboxProfile } from "./profile.ts";

const sandboxCurrency = "EUR";
export const sandboxInstitution = "Svc Sandbox Bank";

interface RawAmount {
  amount: string;
  currency: string;
}

export interface RawAccount {
  resourceId: string;
  iban?: string;
  maskedPan?: string;
  currency: string;
  name: string;
  product: string;
  cashAccountType: string;
}

export interface RawBalance {
  balanceType: "interimBooked" | "interimAvailable";
  balanceAmount: RawAmount;
  lastChangeDateTime: string;
}

export interface RawTransaction {
  transactionId: string;
  bookingDate?: string;
  valueDate?: string;
  transactionAmount: RawAmount;
  creditorName?: string;
  debtorName?: string;
  remittanceInformationUnstructured?: string;
  merchantName?: string;
  pendingTransactionId?: string;
}

export interface RawAccountsPayload {
  accounts: RawAccount[];
}
export interface RawBalancesPayload {
  account: { iban?: string; maskedPan?: string };
  balances: RawBalance[];
}
export interface RawTransactionsPayload {
  account: { iban?: string; maskedPan?: string };
  transactions: { booked: RawTransaction[]; pending: RawTransaction[] };
}

/** Thrown when asked about an account the connection does not carry. */
class SandboxBankError extends Error {
  override name = "SandboxBankError";
}

const money = (cents: number): RawAmount => ({
  amount: formatMinorUnits(cents, sandboxCurrency),
  currency: sandboxCurrency,
});

function accountOf(profile: SandboxProfile, resourceId: string): SandboxAccount {
  const account = profile.accounts.find((a) => a.code === resourceId);
  if (!account) throw new SandboxBankError(`sandbox bank: no account ${resourceId}`);
  return account;
}

function reference(account: SandboxAccount): { iban?: string; maskedPan?: string } {
  return account.iban ? { iban: account.iban } : { maskedPan: account.maskedPan ?? "" };
}

export function accountsPayload(profile: SandboxProfile): RawAccountsPayload {
  return {
    accounts: profile.accounts.map((account) => ({
      resourceId: account.code,
      ...reference(account),
      currency: sandboxCurrency,
      name: account.name,
      product: account.product,
      cashAccountType: account.cashAccountType,
    })),
  };
}

/** Booked and pending totals of one account at `now` (every item since the history began). */
function totals(profile: SandboxProfile, code: SandboxAccountCode, now: number) {
  let bookedCents = 0;
  let pendingCents = 0;
  let lastChange = profile.historyStart;
  for (const item of balanceActivity(profile, now)) {
    if (item.account !== code) continue;
    if (item.bookAt <= now) bookedCents += item.amountCents;
    else pendingCents += item.amountCents;
    lastChange = Math.max(lastChange, item.bookAt <= now ? item.bookAt : item.at);
  }
  const moved = profile.simulated?.balances[code];
  if (moved && moved.at <= now) {
    bookedCents += moved.cents;
    lastChange = Math.max(lastChange, moved.at);
  }
  return { bookedCents, pendingCents, lastChange };
}

export function balancesPayload(
  profile: SandboxProfile,
  resourceId: string,
  now: number,
): RawBalancesPayload {
  const account = accountOf(profile, resourceId);
  const { bookedCents, pendingCents, lastChange } = totals(profile, account.code, now);
  const current = account.openingCents + bookedCents;
  const available = account.creditLimitCents + current + pendingCents;
  const lastChangeDateTime = new Date(lastChange).toISOString();
  return {
    account: reference(account),
    balances: [
      { balanceType: "interimBooked", balanceAmount: money(current), lastChangeDateTime },
      { balanceType: "interimAvailable", balanceAmount: money(available), lastChangeDateTime },
    ],
  };
}

function rawTransaction(item: SandboxItem, booked: boolean): RawTransaction {
  const party =
    item.counterparty === null
      ? {}
      : item.amountCents < 0
        ? { creditorName: item.counterparty }
        : { debtorName: item.counterparty };
  const pending = item.bookAt > item.at;
  return {
    transactionId: `${booked ? "B" : "P"}-${item.key}`,
    ...(booked ? { bookingDate: toDateString(new Date(item.bookAt)) } : {}),
    valueDate: toDateString(new Date(item.at)),
    transactionAmount: money(item.amountCents),
    ...party,
    remittanceInformationUnstructured: item.description,
    ...(item.merchant ? { merchantName: item.merchant } : {}),
    ...(booked && pending ? { pendingTransactionId: `P-${item.key}` } : {}),
  };
}

/**
 * Booked transactions with a booking date on or after `dateFrom` (all history without it), and
 * every transaction still pending at `now`, newest first as banks list them.
 */
export function transactionsPayload(
  profile: SandboxProfile,
  resourceId: string,
  dateFrom: string | undefined,
  now: number,
): RawTransactionsPayload {
  const account = accountOf(profile, resourceId);
  const fromDay = dateFrom ? dayNumber(new Date(`${dateFrom}T00:00:00.000Z`)) : undefined;
  // A row booked inside the window may have happened up to the booking lag before it.
  const scanFrom =
    fromDay === undefined ? profile.historyStart : dayStart(fromDay).getTime() - maxBookingLagMs;
  const booked: SandboxItem[] = [];
  const pending: SandboxItem[] = [];
  for (const item of activityBetween(profile, scanFrom, now)) {
    if (item.account !== account.code) continue;
    if (item.bookAt > now) pending.push(item);
    else if (fromDay === undefined || dayNumber(item.bookAt) >= fromDay) booked.push(item);
  }
  const newestFirst = (key: "at" | "bookAt") => (a: SandboxItem, b: SandboxItem) =>
    b[key] - a[key] || (a.key < b.key ? -1 : 1);
  return {
    account: reference(account),
    transactions: {
      booked: booked.sort(newestFirst("bookAt")).map((item) => rawTransaction(item, true)),
      pending: pending.sort(newestFirst("at")).map((item) => rawTransaction(item, false)),
    },
  };
}
