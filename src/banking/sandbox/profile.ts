// Who the sandbox bank's customer is, derived from the seed alone: which accounts they hold,
// where they work, what they pay in rent. The same seed always gives the same customer.
import { dayNumber, dayStart } from "../../core/dates.ts";
import { employers, landlords } from "./catalog.ts";
import { type Random, randomStream } from "./prng.ts";

/** Stream ids, so the profile, daily activity and live activity never share random numbers. */
export const streams = { profile: 1, day: 2, live: 3, iban: 4 } as const;

/** How far back the history reaches from the moment the connection is made. */
const historyDays = 90;

export type SandboxAccountCode = "cur" | "sav" | "card";

export interface SandboxAccount {
  code: SandboxAccountCode;
  name: string;
  product: string;
  /** ISO 20022 cash account type, as a PSD2 bank API reports it. */
  cashAccountType: "CACC" | "SVGS" | "CARD";
  iban: string | null;
  maskedPan: string | null;
  openingCents: number;
  creditLimitCents: number;
}

/**
 * One thing that happened at the bank, in cents. Card payments are pending until `bookAt`.
 * Made by the seed (activity.ts) or by *Simulate activity* (simulate.ts).
 */
export interface SandboxItem {
  /** Stable id part, unique per connection. */
  key: string;
  account: SandboxAccountCode;
  amountCents: number;
  at: number;
  bookAt: number;
  description: string;
  counterparty: string | null;
  merchant: string | null;
}

/** What *Simulate activity* added to the bank, beside the activity the seed decides. */
export interface SimulatedActivity {
  items: SandboxItem[];
  /** Pending items booked on demand: item key -> when it booked (ms). */
  booked: Record<string, number>;
  /** Balance moves without a transaction, per account: the sum in cents and the last move. */
  balances: Partial<Record<SandboxAccountCode, { cents: number; at: number }>>;
}

/** What the sandbox keeps in connections.provider_state. */
export interface SandboxState {
  seed: number;
  /** When the connection was made (ms); history reaches back from here. */
  openedAt: number;
  simulated?: SimulatedActivity;
}

export interface SandboxProfile extends SandboxState {
  historyStart: number;
  accounts: SandboxAccount[];
  employer: string;
  salaryCents: number;
  landlord: string;
  rentCents: number;
  savingsTransferCents: number;
}

/** ISO 13616 check digits (mod 97) for a German IBAN with the given BBAN. */
function germanIban(bban: string): string {
  const digits = `${bban}131400`; // "DE" -> 13 14, then "00"
  let remainder = 0;
  for (const digit of digits) remainder = (remainder * 10 + Number(digit)) % 97;
  return `DE${String(98 - remainder).padStart(2, "0")}${bban}`;
}

function accountNumber(random: Random, length: number): string {
  let text = String(random.int(1, 9));
  while (text.length < length) text += String(random.int(0, 9));
  return text;
}

/** Fictitious bank code of the sandbox bank. */
const sandboxBankCode = "10010010";

export function sandboxProfile(state: SandboxState): SandboxProfile {
  const random = randomStream(state.seed, streams.profile);
  const numbers = randomStream(state.seed, streams.iban);
  // Two or three accounts: always a current account, plus savings and/or a credit card.
  const variant = random.pick(["all", "all", "savings", "card"] as const);
  const accounts: SandboxAccount[] = [
    {
      code: "cur",
      name: "Everyday Account",
      product: "Girokonto",
      cashAccountType: "CACC",
      iban: germanIban(`${sandboxBankCode}${accountNumber(numbers, 10)}`),
      maskedPan: null,
      openingCents: random.int(150_000, 420_000),
      creditLimitCents: 0,
    },
  ];
  if (variant !== "card") {
    accounts.push({
      code: "sav",
      name: "Savings Account",
      product: "Tagesgeld",
      cashAccountType: "SVGS",
      iban: germanIban(`${sandboxBankCode}${accountNumber(numbers, 10)}`),
      maskedPan: null,
      openingCents: random.int(400_000, 2_500_000),
      creditLimitCents: 0,
    });
  }
  if (variant !== "savings") {
    accounts.push({
      code: "card",
      name: "Mastercard Gold",
      product: "Credit card",
      cashAccountType: "CARD",
      iban: null,
      maskedPan: `529966******${accountNumber(numbers, 4)}`,
      openingCents: -random.int(0, 60_000),
      creditLimitCents: random.int(20, 80) * 10_000,
    });
  }
  return {
    ...state,
    historyStart: dayStart(dayNumber(state.openedAt) - historyDays).getTime(),
    accounts,
    employer: random.pick(employers),
    salaryCents: random.int(320_000, 560_000),
    landlord: random.pick(landlords),
    rentCents: random.int(80, 160) * 1_000,
    savingsTransferCents: random.int(2, 10) * 5_000,
  };
}
