import { afterEach, beforeEach, describe, expect, spyOn, test } from "bun:test";
import {
  accountsPayload,
  balancesPayload,
  type RawTransaction,
  transactionsPayload,
} from "../../src/banking/sandbox/bank.ts";
import { randomStream } from "../../src/banking/sandbox/prng.ts";
import { sandboxProfile } from "../../src/banking/sandbox/profile.ts";

const openedAt = Date.parse("2026-01-15T09:00:00.000Z");
const minute = 60_000;
const day = 86_400_000;

function allTransactions(seed: number, code: string, at: number) {
  return transactionsPayload(sandboxProfile({ seed, openedAt }), code, undefined, at).transactions;
}

describe("sandbox bank: deterministic per seed", () => {
  let randomSpy: ReturnType<typeof spyOn>;
  beforeEach(() => {
    randomSpy = spyOn(Math, "random").mockImplementation(() => {
      throw new Error("the sandbox bank must not use Math.random");
    });
  });
  afterEach(() => randomSpy.mockRestore());

  test("the same seed and time give identical payloads; another seed gives another customer", () => {
    const read = (seed: number) => {
      const profile = sandboxProfile({ seed, openedAt });
      return JSON.stringify([
        accountsPayload(profile),
        ...profile.accounts.map((a) => balancesPayload(profile, a.code, openedAt + day)),
        ...profile.accounts.map((a) =>
          transactionsPayload(profile, a.code, undefined, openedAt + day),
        ),
      ]);
    };
    expect(read(7)).toBe(read(7));
    expect(read(7)).not.toBe(read(8));
  });

  test("streams addressed by the same path repeat; different paths differ", () => {
    const a = randomStream(1, 2, 3);
    const b = randomStream(1, 2, 3);
    const c = randomStream(1, 2, 4);
    const first = [a.next(), a.next(), a.next()];
    expect([b.next(), b.next(), b.next()]).toEqual(first);
    expect(c.next()).not.toBe(first[0]);
    for (let i = 0; i < 1000; i++) {
      const n = a.int(3, 5);
      expect(n >= 3 && n <= 5 && Number.isInteger(n)).toBe(true);
    }
  });
});

describe("sandbox bank: a realistic customer", () => {
  test("every seed has a current account plus savings and/or a credit card (2 or 3 accounts)", () => {
    const variants = new Set<string>();
    for (let seed = 0; seed < 40; seed++) {
      const { accounts } = accountsPayload(sandboxProfile({ seed, openedAt }));
      expect(accounts.length === 2 || accounts.length === 3).toBe(true);
      expect(accounts[0]?.cashAccountType).toBe("CACC");
      variants.add(accounts.map((a) => a.cashAccountType).join("+"));
    }
    expect([...variants].sort()).toEqual(["CACC+CARD", "CACC+SVGS", "CACC+SVGS+CARD"]);
  });

  test("IBANs carry valid ISO 13616 check digits", () => {
    for (let seed = 0; seed < 20; seed++) {
      for (const account of accountsPayload(sandboxProfile({ seed, openedAt })).accounts) {
        if (!account.iban) continue;
        const rearranged = `${account.iban.slice(4)}${account.iban.slice(0, 4)}`.replace(
          /[A-Z]/g,
          (ch) => String(ch.charCodeAt(0) - 55),
        );
        expect(BigInt(rearranged) % 97n).toBe(1n);
      }
    }
  });

  test("90 days of history: monthly salary and rent, card spend with merchant names, transfers, pending rows", () => {
    const seed = findSeed((p) => p.accounts.length === 3);
    const { booked, pending } = allTransactions(seed, "cur", openedAt);
    const texts = booked.map((t) => t.remittanceInformationUnstructured ?? "");
    expect(texts.filter((t) => t.startsWith("Salary")).length).toBeGreaterThanOrEqual(3);
    expect(texts.filter((t) => t.startsWith("Rent")).length).toBeGreaterThanOrEqual(3);
    expect(texts.some((t) => t.startsWith("Standing order to Savings"))).toBe(true);
    expect(texts.some((t) => t.startsWith("Mastercard Gold monthly statement"))).toBe(true);
    const cardSpend = booked.filter((t) => t.merchantName);
    expect(cardSpend.length).toBeGreaterThan(60);
    expect(new Set(cardSpend.map((t) => t.merchantName)).size).toBeGreaterThan(5);
    expect(pending.length).toBeGreaterThan(0);
    // The history reaches back 90 days from the day of connecting (2026-01-15).
    const dates = booked.map((t) => t.valueDate as string).sort();
    expect(dates[0] && dates[0] >= "2025-10-17" && dates[0] <= "2025-10-20").toBe(true);
    // Savings receive the transfer; the card is paid from the current account.
    const savings = allTransactions(seed, "sav", openedAt).booked;
    expect(savings.some((t) => t.debtorName === "Own account")).toBe(true);
    const card = allTransactions(seed, "card", openedAt).booked;
    expect(
      card.some((t) => t.remittanceInformationUnstructured === "Payment received, thank you"),
    ).toBe(true);
  });

  test("pending card payments book later under a new id that names the pending one", () => {
    const seed = 11;
    const before = allTransactions(seed, "cur", openedAt);
    const later = allTransactions(seed, "cur", openedAt + 4 * day);
    const bookedLater = new Map(later.booked.map((t) => [t.pendingTransactionId, t]));
    for (const pending of before.pending) {
      const booked = bookedLater.get(pending.transactionId) as RawTransaction;
      expect(booked).toBeDefined();
      expect(booked.transactionId).not.toBe(pending.transactionId);
      expect(booked.transactionAmount).toEqual(pending.transactionAmount);
      expect(later.pending.some((t) => t.transactionId === pending.transactionId)).toBe(false);
    }
  });

  test("re-reading a trailing 7-day window returns the same transactions with the same ids", () => {
    const profile = sandboxProfile({ seed: 5, openedAt });
    const now = openedAt + 2 * day;
    const full = transactionsPayload(profile, "cur", undefined, now).transactions.booked;
    const window = transactionsPayload(profile, "cur", "2026-01-10", now).transactions.booked;
    expect(window.length).toBeGreaterThan(0);
    expect(window).toEqual(full.filter((t) => (t.bookingDate as string) >= "2026-01-10"));
    expect(transactionsPayload(profile, "cur", "2026-01-10", now)).toEqual(
      transactionsPayload(profile, "cur", "2026-01-10", now),
    );
  });

  test("every 15 minutes after connecting brings a few new transactions and moves a balance", () => {
    const profile = sandboxProfile({ seed: 3, openedAt });
    const ids = (at: number) =>
      new Set(
        profile.accounts.flatMap((a) => {
          const { booked, pending } = transactionsPayload(
            profile,
            a.code,
            "2026-01-08",
            at,
          ).transactions;
          return [...booked, ...pending].map((t) => t.transactionId);
        }),
      );
    const balancesAt = (at: number) =>
      JSON.stringify(profile.accounts.map((a) => balancesPayload(profile, a.code, at).balances));
    for (let step = 0; step < 8; step++) {
      const at = openedAt + step * 15 * minute;
      const next = at + 15 * minute;
      const fresh = [...ids(next)].filter((id) => !ids(at).has(id));
      expect(fresh.length).toBeGreaterThanOrEqual(2);
      expect(balancesAt(next)).not.toBe(balancesAt(at));
    }
  });

  test.each([
    ["a day", 0, day],
    ["ten days", 0, 10 * day],
    ["ten days (connected on an odd live slot)", 5 * minute, 10 * day + 7 * minute],
  ])(
    "balances are the opening balance plus booked rows, available adds pending rows, after %s",
    (_label, shift, age) => {
      const profile = sandboxProfile({ seed: 21, openedAt: openedAt + shift });
      const now = openedAt + shift + age;
      for (const account of profile.accounts) {
        const { booked, pending } = transactionsPayload(
          profile,
          account.code,
          undefined,
          now,
        ).transactions;
        const cents = (rows: RawTransaction[]) =>
          rows.reduce((sum, t) => sum + Math.round(Number(t.transactionAmount.amount) * 100), 0);
        const [current, available] = balancesPayload(profile, account.code, now).balances;
        const expected = account.openingCents + cents(booked);
        expect(Math.round(Number(current?.balanceAmount.amount) * 100)).toBe(expected);
        expect(Math.round(Number(available?.balanceAmount.amount) * 100)).toBe(
          account.creditLimitCents + expected + cents(pending),
        );
      }
    },
  );
});

function findSeed(predicate: (profile: ReturnType<typeof sandboxProfile>) => boolean): number {
  for (let seed = 0; seed < 100; seed++)
    if (predicate(sandboxProfile({ seed, openedAt }))) return seed;
  throw new Error("no seed found");
}
