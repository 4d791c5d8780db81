// Property-based tests (fast-check): any payload the provider's published schema allows is either
// stored (a record our model accepts) or skipped with a named reason; the transforms never throw
// on it. The generators follow Enable Banking's OpenAPI document (AccountResource, AmountType,
// BalanceResource, Transaction) and the SimpleFIN protocol (Account Set, v1 and v2), with every
// optional member present, null or absent and free text anywhere text is allowed.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import {
  accountRecordSchema,
  balanceRecordSchema,
  transactionRecordSchema,
} from "../../../src/banking/model.ts";
import {
  transformEbBalance,
  transformEbTransaction,
  usableEbAccounts,
} from "../../../src/banking/providers/enable-banking/transform.ts";
import {
  parseAccountSet,
  simplefinMessages,
  transformAccountSet,
} from "../../../src/banking/providers/simplefin/transform.ts";
import type { SkipTally } from "../../../src/banking/skips.ts";
import { isSkipReason, reasonsNamed, skippedCount } from "../../support/skip-tally.ts";

const runs = { numRuns: 300 };
/** Any text, lone surrogates and control characters included. */
const anyText = fc.oneof(
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ maxLength: 1500 }),
);
const optional = <T>(arb: fc.Arbitrary<T>) =>
  fc.option(fc.option(arb, { nil: null }), { nil: undefined });
const currency = fc.oneof(
  fc.constantFrom("EUR", "USD", "JPY", "BHD", "SEK", "eur", "XBT", "BTC", "", "XXX"),
  fc.string({ maxLength: 5 }),
);
/** AmountType.amount: `^-?\d+(\.\d+)?$`. */
const amount = fc
  .tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 15n }), fc.option(fc.nat({ max: 999999 })))
  .map(([neg, whole, frac]) => `${neg ? "-" : ""}${whole}${frac === null ? "" : `.${frac}`}`);
const date = fc.oneof(
  fc
    .date({ min: new Date("1990-01-01"), max: new Date("2100-01-01"), noInvalidDate: true })
    .map((d) => d.toISOString().slice(0, 10)),
  anyText,
);
const party = optional(fc.record({ name: optional(anyText) }, { requiredKeys: [] }));
const extra = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), {
  maxKeys: 2,
});

const ebTransaction = fc
  .tuple(
    fc.record(
      {
        entry_reference: optional(anyText),
        transaction_id: optional(anyText),
        transaction_amount: fc.record({ currency, amount }),
        credit_debit_indicator: fc.constantFrom("CRDT", "DBIT"),
        status: fc.oneof(
          fc.constantFrom("BOOK", "CNCL", "HOLD", "OTHR", "PDNG", "RJCT", "SCHD"),
          anyText,
        ),
        booking_date: optional(date),
        value_date: optional(date),
        transaction_date: optional(date),
        creditor: party,
        debtor: party,
        remittance_information: optional(fc.array(anyText, { maxLength: 4 })),
      },
      {
        requiredKeys: ["transaction_amount", "credit_debit_indicator", "status"],
      },
    ),
    extra,
  )
  .map(([row, more]) => ({ ...more, ...row }));

const ebAccount = fc.record(
  {
    uid: optional(fc.oneof(fc.uuid(), anyText)),
    account_id: optional(
      fc.record({ iban: optional(anyText), masked_pan: optional(anyText) }, { requiredKeys: [] }),
    ),
    name: optional(anyText),
    details: optional(anyText),
    product: optional(anyText),
    cash_account_type: fc.oneof(
      fc.constantFrom("CACC", "CARD", "SVGS", "LOAN", "TRAN", "OTHR"),
      anyText,
    ),
    currency,
  },
  { requiredKeys: ["cash_account_type", "currency"] },
);

const ebBalances = fc.record({
  balances: fc.array(
    fc.record(
      {
        name: anyText,
        balance_amount: fc.record({ currency, amount }),
        balance_type: fc.oneof(
          fc.constantFrom("CLBD", "ITAV", "XPCD", "OTHR", "INFO", "VALU"),
          anyText,
        ),
        reference_date: optional(date),
        last_change_date_time: optional(
          fc.oneof(
            fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
            anyText,
          ),
        ),
      },
      { requiredKeys: ["name", "balance_amount", "balance_type"] },
    ),
    { maxLength: 4 },
  ),
});

describe("Enable Banking: anything its OpenAPI document allows is stored or skipped by name", () => {
  test("a transaction", () => {
    fc.assert(
      fc.property(ebTransaction, (row) => {
        const result = transformEbTransaction(row, "2026-01-15");
        if (typeof result === "string") return isSkipReason(result);
        return transactionRecordSchema.safeParse(result).success;
      }),
      runs,
    );
  });

  test("a row with an ISO currency and status BOOK, PDNG or HOLD is always stored, signed by its indicator", () => {
    const usable = ebTransaction.map((row) => ({
      ...row,
      status: row.status.length % 3 === 0 ? "BOOK" : row.status.length % 3 === 1 ? "PDNG" : "HOLD",
      transaction_amount: { ...row.transaction_amount, currency: "EUR" },
    }));
    fc.assert(
      fc.property(usable, (row) => {
        const result = transformEbTransaction(row, "2026-01-15");
        if (typeof result === "string") return false;
        const zero = /^-?0+(\.0+)?$/.test(row.transaction_amount.amount);
        return zero || result.amount.startsWith("-") === (row.credit_debit_indicator === "DBIT");
      }),
      runs,
    );
  });

  test("an account of a session", () => {
    fc.assert(
      fc.property(fc.array(ebAccount, { maxLength: 4 }), (accounts) => {
        const skipped: SkipTally = {};
        const usable = usableEbAccounts(accounts as never, skipped);
        return (
          usable.length + skippedCount(skipped) === accounts.length &&
          usable.every((a) => accountRecordSchema.safeParse(a).success) &&
          reasonsNamed(skipped)
        );
      }),
      runs,
    );
  });

  test("a balance list (no readable balance is no balance, not a failure)", () => {
    fc.assert(
      fc.property(ebBalances, (payload) => {
        const balance = transformEbBalance(payload, new Date("2026-01-15T09:00:00Z"));
        return balance === null || balanceRecordSchema.safeParse(balance).success;
      }),
      runs,
    );
  });
});

const unixTime = fc.integer({ min: 0, max: 4_102_444_800 });
const sfTransaction = fc.record(
  {
    id: fc.oneof(anyText, fc.constant("0")),
    posted: unixTime,
    amount: fc.oneof(amount, anyText),
    description: anyText,
    payee: optional(anyText),
    memo: optional(anyText),
    transacted_at: optional(unixTime),
    pending: optional(fc.boolean()),
    extra: optional(extra),
  },
  { requiredKeys: ["id", "posted", "amount", "description"] },
);
const sfAccount = fc.record(
  {
    org: fc.record({ domain: anyText, "sfin-url": anyText, name: anyText }, { requiredKeys: [] }),
    conn_id: anyText,
    id: anyText,
    name: anyText,
    currency: fc.oneof(currency, fc.constant("https://www.example.com/flight-miles")),
    balance: fc.oneof(amount, anyText),
    "available-balance": fc.oneof(amount, anyText),
    "balance-date": unixTime,
    transactions: fc.array(sfTransaction, { maxLength: 5 }),
    extra,
  },
  { requiredKeys: ["id", "name", "currency", "balance", "balance-date"] },
);
const sfAccountSet = fc.oneof(
  // Version 1: errors (strings), org on accounts.
  fc.record({
    errors: fc.array(anyText, { maxLength: 3 }),
    accounts: fc.array(sfAccount, { maxLength: 3 }),
  }),
  // Version 2: errlist ({code, message, conn_id}), connections, no org.
  fc.record({
    errlist: fc.array(
      fc.record(
        { code: anyText, message: anyText, conn_id: anyText, account_id: anyText },
        { requiredKeys: [] },
      ),
      { maxLength: 3 },
    ),
    connections: fc.array(fc.record({ conn_id: anyText, name: anyText }), { maxLength: 2 }),
    accounts: fc.array(sfAccount, { maxLength: 3 }),
  }),
);

describe("SimpleFIN: any account set of the protocol (v1 or v2) is stored or skipped by name", () => {
  test("accounts and transactions", () => {
    fc.assert(
      fc.property(sfAccountSet, (payload) => {
        const skipped: SkipTally = {};
        const set = parseAccountSet(payload);
        const snapshots = transformAccountSet(set, "2026-01-15", skipped);
        simplefinMessages(set);
        const rows = snapshots.flatMap((s) => s.transactions);
        const rawRows = payload.accounts.flatMap((a) => a.transactions ?? []).length;
        expect(snapshots.length).toBeLessThanOrEqual(payload.accounts.length);
        expect(rows.length + (skipped.malformed_transaction ?? 0)).toBeLessThanOrEqual(rawRows);
        return (
          reasonsNamed(skipped) &&
          snapshots.every(
            (s) =>
              accountRecordSchema.safeParse(s.account).success &&
              balanceRecordSchema.safeParse(s.balance).success,
          ) &&
          rows.every((r) => transactionRecordSchema.safeParse(r).success)
        );
      }),
      runs,
    );
  });
});
