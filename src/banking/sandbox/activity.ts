// The sandbox bank's activity: what happens on which day, as a pure function of the profile.
// Each day (and each live slot) draws from its own random stream, so any window can be
// generated without replaying history, and re-reading a window finds the same transactions
// with the same ids.
import { dayMs, dayNumber, dayStart } from "../../core/dates.ts";
import {
  cardMerchants,
  directDebits,
  everydayMerchants,
  friends,
  type MerchantSpec,
  monthNames,
} from "./catalog.ts";
import { type Random, randomStream } from "./prng.ts";
import {
  type SandboxAccountCode,
  type SandboxItem,
  type SandboxProfile,
  streams,
} from "./profile.ts";

const hourMs = 3_600_000;
const minuteMs = 60_000;

/**
 * After the connection is made the bank is deliberately busy: one transaction in every
 * five-minute slot, so each scheduled sync (default every 15 minutes) brings a few.
 */
const liveSlotMs = 5 * minuteMs;
/** Card payments show as pending until they book, at most this long after they happen. */
export const maxBookingLagMs = 4 * dayMs;
/** Live card payments book between 30 and 180 minutes after they happen. */
const liveMinLagMs = 30 * minuteMs;
const liveMaxLagMs = 180 * minuteMs;

export type { SandboxItem };

function monthLabel(day: number): string {
  const date = dayStart(day);
  return `${monthNames[date.getUTCMonth()]} ${date.getUTCFullYear()}`;
}

function dayKey(day: number): string {
  return dayStart(day).toISOString().slice(0, 10).replaceAll("-", "");
}

/** The day of month a payment due on `dueDay` is made, moved off weekends. */
function businessDayOfMonth(day: number, dueDay: number, direction: "before" | "after"): number {
  const date = dayStart(day);
  const due = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), dueDay));
  const weekday = due.getUTCDay();
  const shift =
    weekday === 6
      ? direction === "before"
        ? -1
        : 2
      : weekday === 0
        ? direction === "before"
          ? -2
          : 1
        : 0;
  return dayNumber(due) + shift;
}

function isLastDayOfMonth(day: number): boolean {
  return dayStart(day + 1).getUTCDate() === 1;
}

function cardSpend(
  random: Random,
  merchants: readonly MerchantSpec[],
  input: { key: string; account: SandboxAccountCode; at: number; lagMs: number },
): SandboxItem {
  const merchant = random.pick(merchants);
  const amount = random.int(merchant.minCents, merchant.maxCents);
  return {
    key: input.key,
    account: input.account,
    amountCents: -amount,
    at: input.at,
    bookAt: input.at + input.lagMs,
    description: `Card payment ${merchant.name} ${merchant.city}`,
    counterparty: null,
    merchant: merchant.name,
  };
}

/** The credit card purchases of one day (at most one; about one day in four). */
function cardPurchases(profile: SandboxProfile, day: number): SandboxItem[] {
  const card = randomStream(profile.seed, streams.day, day, 50);
  if (!card.chance(0.25)) return [];
  return [
    cardSpend(card, cardMerchants, {
      key: `card-${dayKey(day)}-buy`,
      account: "card",
      at: dayStart(day).getTime() + card.int(7 * 60, 23 * 60) * minuteMs,
      lagMs: card.int(1, 3) * dayMs,
    }),
  ];
}

function previousMonthCardSpend(profile: SandboxProfile, day: number): number {
  const date = dayStart(day);
  const first = dayNumber(new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() - 1, 1)));
  const last = dayNumber(new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1))) - 1;
  let cents = 0;
  for (let d = Math.max(first, dayNumber(profile.historyStart)); d <= last; d++) {
    for (const item of cardPurchases(profile, d)) cents -= item.amountCents;
  }
  return cents;
}

/** Everything scheduled or spent on one calendar day, for every account of the profile. */
function dailyItems(profile: SandboxProfile, day: number): SandboxItem[] {
  const has = (code: SandboxAccountCode) => profile.accounts.some((a) => a.code === code);
  const start = dayStart(day).getTime();
  const date = dayStart(day);
  const stream = (kind: number) => randomStream(profile.seed, streams.day, day, kind);
  const key = `${dayKey(day)}`;
  const items: SandboxItem[] = [];
  const booked = (item: Omit<SandboxItem, "bookAt" | "merchant"> & { merchant?: string }) =>
    items.push({ merchant: null, ...item, bookAt: item.at });

  if (day === businessDayOfMonth(day, 25, "before")) {
    booked({
      key: `cur-${key}-salary`,
      account: "cur",
      amountCents: profile.salaryCents,
      at: start + 5 * hourMs,
      description: `Salary ${monthLabel(day)} ${profile.employer}`,
      counterparty: profile.employer,
    });
  }
  if (day === businessDayOfMonth(day, 1, "after")) {
    booked({
      key: `cur-${key}-rent`,
      account: "cur",
      amountCents: -profile.rentCents,
      at: start + 6 * hourMs,
      description: `Rent ${monthLabel(day)} standing order`,
      counterparty: profile.landlord,
    });
  }
  for (const [index, debit] of directDebits.entries()) {
    if (date.getUTCDate() !== debit.day) continue;
    booked({
      key: `cur-${key}-dd${index}`,
      account: "cur",
      amountCents: -stream(10 + index).int(debit.minCents, debit.maxCents),
      at: start + 6 * hourMs + 30 * minuteMs,
      description: `Direct debit ${debit.text} ${monthLabel(day)}`,
      counterparty: debit.payee,
    });
  }
  if (has("sav") && date.getUTCDate() === 26) {
    const at = start + 7 * hourMs;
    booked({
      key: `cur-${key}-tosav`,
      account: "cur",
      amountCents: -profile.savingsTransferCents,
      at,
      description: "Standing order to Savings Account",
      counterparty: "Own account",
    });
    booked({
      key: `sav-${key}-fromcur`,
      account: "sav",
      amountCents: profile.savingsTransferCents,
      at,
      description: "Standing order from Everyday Account",
      counterparty: "Own account",
    });
  }
  if (has("sav") && isLastDayOfMonth(day)) {
    booked({
      key: `sav-${key}-interest`,
      account: "sav",
      amountCents: stream(20).int(150, 2_400),
      at: start + 22 * hourMs,
      description: `Interest ${monthLabel(day)}`,
      counterparty: null,
    });
  }
  if (has("card") && date.getUTCDate() === 5) {
    // The card is paid in full: last month's purchases, by direct debit from the current account.
    const statementCents = previousMonthCardSpend(profile, day);
    const at = start + 7 * hourMs + 30 * minuteMs;
    if (statementCents > 0) {
      booked({
        key: `cur-${key}-cardbill`,
        account: "cur",
        amountCents: -statementCents,
        at,
        description: "Mastercard Gold monthly statement",
        counterparty: "Svc Sandbox Bank Card Services",
      });
      booked({
        key: `card-${key}-payment`,
        account: "card",
        amountCents: statementCents,
        at,
        description: "Payment received, thank you",
        counterparty: "Everyday Account",
      });
    }
  }
  if (date.getUTCDay() === 6) {
    const atm = stream(30);
    if (atm.chance(0.6)) {
      booked({
        key: `cur-${key}-atm`,
        account: "cur",
        amountCents: -atm.pick([5_000, 10_000, 10_000, 20_000]),
        at: start + atm.int(10, 17) * hourMs + atm.int(0, 59) * minuteMs,
        description: "Cash withdrawal ATM Sandbox Bank",
        counterparty: null,
      });
    }
  }
  const spend = stream(40);
  const everydayCount = spend.pick([0, 0, 1, 1, 1, 2, 2, 3]);
  for (let n = 0; n < everydayCount; n++) {
    items.push(
      cardSpend(spend, everydayMerchants, {
        key: `cur-${key}-card${n}`,
        account: "cur",
        at: start + spend.int(8 * 60, 21 * 60 + 59) * minuteMs,
        lagMs: spend.int(1, 3) * dayMs,
      }),
    );
  }
  if (has("card")) items.push(...cardPurchases(profile, day));
  return items;
}

/**
 * The one transaction of a live slot (after the connection was made). Slots come in pairs: a
 * card payment, then the same amount coming back (a friend settling their half, a refund), so
 * balances keep moving without drifting away over months of syncs.
 */
function liveItem(profile: SandboxProfile, slot: number): SandboxItem {
  const pair = randomStream(profile.seed, streams.live, Math.floor(slot / 2));
  const hasCard = profile.accounts.some((a) => a.code === "card");
  const account: SandboxAccountCode = hasCard && pair.chance(0.35) ? "card" : "cur";
  const merchant = pair.pick(everydayMerchants);
  const amount = pair.int(300, 6_000);
  const friend = pair.pick(friends);
  const own = randomStream(profile.seed, streams.live, slot, 1);
  const at = slot * liveSlotMs + own.int(0, liveSlotMs - 1);
  const key = `${account}-L${slot}`;
  if (slot % 2 === 0) {
    return {
      key,
      account,
      amountCents: -amount,
      at,
      bookAt: at + own.int(liveMinLagMs / minuteMs, liveMaxLagMs / minuteMs) * minuteMs,
      description: `Card payment ${merchant.name} ${merchant.city}`,
      counterparty: null,
      merchant: merchant.name,
    };
  }
  const back =
    account === "card"
      ? {
          description: `Refund ${merchant.name}`,
          counterparty: merchant.name,
          merchant: merchant.name,
        }
      : {
          description: `${friend}: my half at ${merchant.name}`,
          counterparty: friend,
          merchant: null,
        };
  return { key, account, amountCents: amount, at, bookAt: at, ...back };
}

function* dailyBetween(profile: SandboxProfile, from: number, to: number): Generator<SandboxItem> {
  for (let day = dayNumber(from); day <= dayNumber(to); day++) {
    for (const item of dailyItems(profile, day)) {
      if (item.at >= from && item.at <= to) yield item;
    }
  }
}

function* liveSlots(
  profile: SandboxProfile,
  firstSlot: number,
  to: number,
): Generator<SandboxItem> {
  for (let slot = firstSlot; slot * liveSlotMs <= to; slot++) {
    const item = liveItem(profile, slot);
    if (item.at <= to) yield item;
  }
}

function firstLiveSlot(profile: SandboxProfile, from: number): number {
  return Math.ceil(Math.max(from, profile.openedAt) / liveSlotMs);
}

/** An item as the bank has it now: a pending item booked on demand books at that moment. */
function simulatedBooking(profile: SandboxProfile, item: SandboxItem): SandboxItem {
  const bookedAt = profile.simulated?.booked[item.key];
  return bookedAt === undefined || bookedAt >= item.bookAt ? item : { ...item, bookAt: bookedAt };
}

function* withSimulation(
  profile: SandboxProfile,
  items: Iterable<SandboxItem>,
  fromMs: number,
  toMs: number,
): Generator<SandboxItem> {
  if (!profile.simulated) {
    yield* items;
    return;
  }
  for (const item of items) yield simulatedBooking(profile, item);
  for (const item of profile.simulated.items) {
    if (item.at >= fromMs && item.at <= toMs) yield simulatedBooking(profile, item);
  }
}

/** Every item that happened in [fromMs, toMs], oldest day first (then simulated ones). */
export function* activityBetween(
  profile: SandboxProfile,
  fromMs: number,
  toMs: number,
): Generator<SandboxItem> {
  const from = Math.max(fromMs, profile.historyStart);
  if (toMs < from) return;
  yield* withSimulation(
    profile,
    (function* () {
      yield* dailyBetween(profile, from, toMs);
      yield* liveSlots(profile, firstLiveSlot(profile, from), toMs);
    })(),
    from,
    toMs,
  );
}

/** A live pair is settled (both rows booked) at most this long after its first slot began. */
const livePairSettledMs = 2 * liveSlotMs + liveMaxLagMs;

/**
 * The items that decide the balance at `toMs`: the whole daily history, but of the live
 * activity only the pairs not yet settled (a settled pair's payment and money back cancel out,
 * so months of live activity cost no more than the last few hours), plus a first slot whose
 * partner predates the connection.
 */
export function* balanceActivity(profile: SandboxProfile, toMs: number): Generator<SandboxItem> {
  if (toMs < profile.historyStart) return;
  yield* withSimulation(profile, seededBalanceActivity(profile, toMs), profile.historyStart, toMs);
}

function* seededBalanceActivity(profile: SandboxProfile, toMs: number): Generator<SandboxItem> {
  yield* dailyBetween(profile, profile.historyStart, toMs);
  const first = firstLiveSlot(profile, profile.historyStart);
  let from = first;
  if (first % 2 === 1) {
    if (first * liveSlotMs <= toMs) {
      const item = liveItem(profile, first);
      if (item.at <= toMs) yield item;
    }
    from = first + 1;
  }
  const unsettled = Math.floor((toMs - livePairSettledMs) / liveSlotMs);
  yield* liveSlots(profile, Math.max(from, unsettled - (unsettled % 2)), toMs);
}
