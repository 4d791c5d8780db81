// The transforms over the whole corpus of real provider answers (test/fixtures/providers): every
// row and account of every answer is either stored (a record our model accepts) or skipped with
// a named reason; nothing throws. Then what each shape must become.
import { describe, expect, test } from "bun:test";
import { accountRecordSchema, transactionRecordSchema } from "../../../src/banking/model.ts";
import {
  transformEbBalance,
  transformEbTransactions,
  usableEbAccounts,
} from "../../../src/banking/providers/enable-banking/transform.ts";
import {
  parseAccountSet,
  simplefinMessages,
  transformAccountSet,
} from "../../../src/banking/providers/simplefin/transform.ts";
import type { SkipTally } from "../../../src/banking/skips.ts";
import {
  defaultEbAccount,
  enableBankingShape,
  enableBankingShapes,
  simplefinShape,
  simplefinShapes,
} from "../../support/provider-fixtures.ts";
import { reasonsNamed, skippedCount } from "../../support/skip-tally.ts";

const fetchedAt = new Date("2026-01-15T09:00:00Z");

function ebRows(shape: string, read = 0) {
  const skipped: SkipTally = {};
  const rows = transformEbTransactions(
    enableBankingShape(shape).reads[read] as never,
    "2026-01-15",
    skipped,
  );
  return { rows, skipped };
}

describe("every Enable Banking shape is stored or skipped by name", () => {
  for (const shape of enableBankingShapes) {
    test(`${shape.shape}: accounts, balance and every row of every read`, () => {
      const accountSkips: SkipTally = {};
      const accounts = shape.session_accounts ?? [defaultEbAccount];
      const usable = usableEbAccounts(accounts as never, accountSkips);
      expect(usable.length + skippedCount(accountSkips)).toBe(accounts.length);
      for (const account of usable)
        expect(accountRecordSchema.safeParse(account).success).toBe(true);
      expect(reasonsNamed(accountSkips)).toBe(true);
      if (shape.balances) expect(() => transformEbBalance(shape.balances, fetchedAt)).not.toThrow();
      for (const pages of shape.reads) {
        const skipped: SkipTally = {};
        const rows = transformEbTransactions(pages as never, "2026-01-15", skipped);
        const raw = pages.flatMap((page) => page.transactions ?? []).length;
        expect(rows.length + skippedCount(skipped)).toBe(raw);
        expect(reasonsNamed(skipped)).toBe(true);
        for (const row of rows)
          expect(transactionRecordSchema.safeParse(row).error).toBeUndefined();
      }
    });
  }
});

describe("every SimpleFIN shape is stored or skipped by name", () => {
  for (const shape of simplefinShapes) {
    test(`${shape.shape}: every account and row of every read`, () => {
      for (const answer of shape.reads) {
        const skipped: SkipTally = {};
        const set = parseAccountSet(answer);
        const snapshots = transformAccountSet(set, "2026-01-15", skipped);
        const accountSkips =
          (skipped.account_without_id ?? 0) +
          (skipped.malformed_account ?? 0) +
          (skipped.unsupported_currency ?? 0);
        expect(snapshots.length + accountSkips).toBe((set.accounts ?? []).length);
        const kept = new Set(snapshots.map((s) => s.account.externalId));
        const rawRows = (set.accounts ?? [])
          .filter((a) => kept.has(String((a as { id: unknown }).id)))
          .flatMap((a) => (a as { transactions?: unknown[] }).transactions ?? []).length;
        const rows = snapshots.flatMap((s) => s.transactions);
        expect(rows.length + (skipped.malformed_transaction ?? 0)).toBe(rawRows);
        expect(reasonsNamed(skipped)).toBe(true);
        for (const s of snapshots) {
          expect(accountRecordSchema.safeParse(s.account).success).toBe(true);
          for (const row of s.transactions)
            expect(transactionRecordSchema.safeParse(row).error).toBeUndefined();
        }
      }
    });
  }
});

describe("Enable Banking shapes", () => {
  test("an overdraft's balances are negative decimal strings", () => {
    expect(transformEbBalance(enableBankingShape("overdraft-balance").balances, fetchedAt)).toEqual(
      {
        current: "-245.67",
        available: "-45.67",
        currency: "EUR",
        asOf: new Date("2026-01-14T00:00:00Z"),
      },
    );
  });

  test("card debt: an expected balance is current when no booked one exists; a card account keeps its PAN's last four", () => {
    const shape = enableBankingShape("card-debt-balance");
    expect(transformEbBalance(shape.balances, fetchedAt)).toMatchObject({ current: "-1318.20" });
    expect(usableEbAccounts(shape.session_accounts as never)).toEqual([
      expect.objectContaining({ type: "credit_card", iban: null, mask: "4242" }),
    ]);
  });

  test('entry_reference "0" is kept as a hint only; pending rows dated by transaction_date', () => {
    const { rows } = ebRows("entry-reference-zero");
    expect(rows.map((r) => [r.status, r.bookingDate, r.amount])).toEqual([
      ["pending", "2026-01-14", "-23.45"],
      ["pending", "2026-01-14", "-60.00"],
      ["pending", "2026-01-15", "-3.10"],
      ["booked", "2026-01-13", "-18.90"],
    ]);
  });

  test("transaction_id is never taken as the row's id (it may change between reads)", () => {
    const { rows } = ebRows("transaction-id-churn");
    expect(rows.map((r) => r.externalId)).toEqual([null, null]);
  });

  test("an account without uid is skipped by name; the others are read", () => {
    const skipped: SkipTally = {};
    const accounts = enableBankingShape("account-without-uid").session_accounts as never;
    expect(usableEbAccounts(accounts, skipped)).toHaveLength(1);
    expect(skipped).toEqual({ account_without_id: 1 });
  });

  test('"creditor": {"name": ""} and blank texts become null, the description falls back', () => {
    const { rows } = ebRows("creditor-empty-name");
    expect(rows.map((r) => [r.counterpartyName, r.description])).toEqual([
      [null, "Direct debit 88812"],
      [null, "Transaction"],
      [null, "Transaction"],
    ]);
  });

  test('"iban": null and account_id: null give accounts without IBAN, named by product', () => {
    const accounts = usableEbAccounts(enableBankingShape("iban-null").session_accounts as never);
    expect(accounts.map((a) => [a.iban, a.mask, a.name, a.type])).toEqual([
      [null, null, "Everyday account", "current"],
      [null, null, "Savings Plus", "savings"],
    ]);
  });

  test("a row with only the required fields is dated the day it was fetched", () => {
    const { rows } = ebRows("missing-optional-objects");
    expect(rows.map((r) => [r.status, r.bookingDate, r.amount, r.description])).toEqual([
      ["booked", "2026-01-15", "-5.00", "Transaction"],
      ["pending", "2026-01-14", "7.00", "Transaction"],
    ]);
    const [account] = usableEbAccounts(
      enableBankingShape("missing-optional-objects").session_accounts as never,
    );
    expect(account?.name).toBe("Account");
  });

  test("HOLD is pending; cancelled, rejected, scheduled and informational rows and unknown statuses or directions are skipped by name", () => {
    const { rows, skipped } = ebRows("unknown-enum-values");
    expect(rows.map((r) => [r.status, r.amount])).toEqual([
      ["pending", "-150.00"],
      ["booked", "-12.30"],
    ]);
    expect(skipped).toEqual({ not_money_movement: 4, unknown_status: 1, unknown_direction: 1 });
    const shape = enableBankingShape("unknown-enum-values");
    expect(usableEbAccounts(shape.session_accounts as never)[0]?.type).toBe("other");
    expect(transformEbBalance(shape.balances, fetchedAt)?.current).toBe("50.00");
  });

  test("fields no schema names are ignored", () => {
    const { rows } = ebRows("extra-fields");
    expect(rows).toHaveLength(1);
    expect(
      transformEbBalance(enableBankingShape("extra-fields").balances, fetchedAt)?.current,
    ).toBe("321.00");
  });

  test("non-ISO currencies are skipped by name; a lower-case code is read; JPY has no minor digits", () => {
    const { rows, skipped } = ebRows("non-iso-currency");
    expect(rows.map((r) => [r.currency, r.amount])).toEqual([
      ["EUR", "-8.00"],
      ["JPY", "-1500"],
    ]);
    expect(skipped).toEqual({ unsupported_currency: 1 });
    const accountSkips: SkipTally = {};
    usableEbAccounts(
      enableBankingShape("non-iso-currency").session_accounts as never,
      accountSkips,
    );
    expect(accountSkips).toEqual({ unsupported_currency: 1 });
  });

  test("very long texts are cut to the columns' lengths", () => {
    const { rows } = ebRows("very-long-texts");
    expect(rows[0]?.externalId).toHaveLength(200);
    expect(rows[0]?.counterpartyName?.length).toBeLessThanOrEqual(200);
    expect(rows[0]?.description.length).toBeLessThanOrEqual(1000);
    const [account] = usableEbAccounts(
      enableBankingShape("very-long-texts").session_accounts as never,
    );
    expect(account?.name).toHaveLength(200);
  });

  test("Unicode is kept; control characters become spaces, a lone surrogate U+FFFD, and no surrogate pair is cut", () => {
    const { rows } = ebRows("unicode");
    expect(rows[0]).toMatchObject({
      counterpartyName: "Café Ångström ☕",
      description: "Kiitos! 🎉 Grüße – „Zitat“",
    });
    expect(rows[1]?.description).toBe("مرحبا 日本語のテキスト");
    expect(rows[2]?.description).toBe("tab here nul and lone \ufffd surrogate");
    const emoji = rows[3]?.counterpartyName ?? "";
    expect(emoji.length).toBeLessThanOrEqual(200);
    expect(emoji).toBe("🙂".repeat(100));
  });

  test("the direction comes from the indicator whatever sign the amount carries", () => {
    const { rows } = ebRows("signed-transaction-amount");
    expect(rows.map((r) => r.amount)).toEqual(["-12.30", "99.50"]);
  });
});

describe("SimpleFIN shapes", () => {
  const read = (name: string, index = 0) => {
    const skipped: SkipTally = {};
    const set = parseAccountSet(simplefinShape(name).reads[index]);
    return { set, skipped, accounts: transformAccountSet(set, "2026-01-15", skipped) };
  };

  test("a version 2 answer (errlist, no org) is read: accounts, rows and coded messages", () => {
    const { set, accounts } = read("v2-errlist");
    expect(accounts.map((a) => [a.account.externalId, a.balance.current])).toEqual([
      ["ACT-2", "100.23"],
    ]);
    expect(accounts[0]?.transactions.map((t) => t.amount)).toEqual(["-33.10"]);
    expect(simplefinMessages(set)).toEqual([
      { code: "con.auth", text: "Authentication required for My Bank - Jeff" },
      { code: "gen.other", text: "Data for Other Bank may be delayed" },
    ]);
  });

  test("errors beside accounts are messages; the accounts are read", () => {
    const { set, accounts } = read("errors-with-accounts");
    expect(accounts).toHaveLength(1);
    expect(simplefinMessages(set)[0]?.text).toContain("may need attention");
  });

  test("a custom currency (a URL) is skipped by name", () => {
    const { accounts, skipped } = read("custom-currency");
    expect(accounts.map((a) => a.account.externalId)).toEqual(["ACT-1"]);
    expect(skipped).toEqual({ unsupported_currency: 1 });
  });

  test("a card's negative balance is a negative decimal string", () => {
    const { accounts } = read("credit-card-negative-balance");
    expect(accounts[0]?.balance).toMatchObject({ current: "-842.17", available: "4157.83" });
  });

  test("absent optional members: no available balance, no rows, an empty description", () => {
    const { accounts } = read("missing-optionals");
    expect(accounts.map((a) => [a.balance.available, a.transactions.length])).toEqual([
      [null, 0],
      [null, 2],
    ]);
    expect(accounts[1]?.transactions.map((t) => [t.status, t.description])).toEqual([
      ["booked", "Transaction"],
      ["pending", "Pending no date"],
    ]);
  });

  test("malformed rows and accounts are skipped by name, the rest read", () => {
    const { accounts, skipped } = read("malformed-rows");
    expect(accounts[0]?.transactions.map((t) => t.amount)).toEqual(["-3.00"]);
    expect(skipped).toEqual({ malformed_transaction: 2, malformed_account: 1 });
  });
});
