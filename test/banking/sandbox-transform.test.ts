import { describe, expect, test } from "bun:test";
import {
  SandboxPayloadError,
  transformAccounts,
  transformBalance,
  transformTransactions,
} from "../../src/banking/sandbox/transform.ts";
import accountsFixture from "../fixtures/sandbox/accounts.json" with { type: "json" };
import balancesFixture from "../fixtures/sandbox/balances.json" with { type: "json" };
import transactionsFixture from "../fixtures/sandbox/transactions.json" with { type: "json" };
import malformedFixture from "../fixtures/sandbox/transactions-malformed.json" with {
  type: "json",
};

describe("sandbox transform: PSD2-style payloads -> our model", () => {
  test("accounts: cash account types map to current, savings, credit_card; the mask is the last 4 of IBAN or card number", () => {
    expect(transformAccounts(accountsFixture)).toEqual([
      {
        externalId: "cur",
        name: "Everyday Account",
        type: "current",
        currency: "EUR",
        iban: "DE94100100101517223196",
        mask: "3196",
      },
      {
        externalId: "sav",
        name: "Savings Account",
        type: "savings",
        currency: "EUR",
        iban: "DE56100100102066997376",
        mask: "7376",
      },
      {
        externalId: "card",
        name: "Mastercard Gold",
        type: "credit_card",
        currency: "EUR",
        iban: null,
        mask: "1871",
      },
    ]);
  });

  test("balance: interimBooked is current, interimAvailable is available, amounts normalised to minor digits", () => {
    expect(transformBalance(balancesFixture)).toEqual({
      current: "1802.29",
      available: "1689.50",
      currency: "EUR",
      asOf: new Date("2026-01-14T21:44:00.000Z"),
    });
  });

  test("transactions: booked and pending rows, counterparty by direction, pending link kept, pending dated by value date", () => {
    expect(transformTransactions(transactionsFixture)).toEqual([
      {
        externalId: "B-cur-20260112-card0",
        status: "booked",
        amount: "-14.30",
        currency: "EUR",
        bookingDate: "2026-01-14",
        valueDate: "2026-01-12",
        description: "Card payment Aldi Nord Hamburg",
        counterpartyName: null,
        merchantName: "Aldi Nord",
        pendingExternalId: "P-cur-20260112-card0",
      },
      {
        externalId: "B-cur-20251225-salary",
        status: "booked",
        amount: "4123.57",
        currency: "EUR",
        bookingDate: "2025-12-25",
        valueDate: "2025-12-25",
        description: "Salary December 2025 Nordlicht Software GmbH",
        counterpartyName: "Nordlicht Software GmbH",
        merchantName: null,
        pendingExternalId: null,
      },
      {
        externalId: "B-cur-20260102-rent",
        status: "booked",
        amount: "-1250.00",
        currency: "EUR",
        bookingDate: "2026-01-02",
        valueDate: "2026-01-02",
        description: "Rent January 2026 standing order",
        counterpartyName: "Wohnbau Mitte GmbH",
        merchantName: null,
        pendingExternalId: null,
      },
      {
        externalId: "P-cur-20260114-card2",
        status: "pending",
        amount: "-4.58",
        currency: "EUR",
        bookingDate: "2026-01-14",
        valueDate: "2026-01-14",
        description: "Card payment BVG Ticket Berlin",
        counterpartyName: null,
        merchantName: "BVG Ticket",
        pendingExternalId: null,
      },
    ]);
  });

  test("a malformed payload is a provider failure naming the field", () => {
    expect(() => transformTransactions(malformedFixture)).toThrow(SandboxPayloadError);
    expect(() => transformTransactions(malformedFixture)).toThrow(
      /transactions\.booked\.0\.transactionAmount\.amount/,
    );
    expect(() => transformAccounts({ accounts: [{ resourceId: "x" }] })).toThrow(/accounts/);
  });
});
