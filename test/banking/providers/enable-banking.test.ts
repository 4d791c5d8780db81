import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  createEnableBankingClient,
  type EnableBankingClient,
} from "../../../src/banking/providers/enable-banking/client.ts";
import { signerFromKeyFile } from "../../../src/banking/providers/enable-banking/jwt.ts";
import {
  transformEbAccount,
  transformEbBalance,
  transformEbTransactions,
} from "../../../src/banking/providers/enable-banking/transform.ts";
import { ProviderError } from "../../../src/banking/providers/errors.ts";
import { createProviderHttp } from "../../../src/banking/providers/http.ts";
import {
  type EnableBankingStub,
  startEnableBankingStub,
} from "../../support/enable-banking-stub.ts";
import { createFakeClock } from "../../support/fake-clock.ts";
import { rejectionOf } from "../../support/rejection.ts";

// Payloads shaped as in Enable Banking's API reference (accounts, balances, transactions).
const accountPayload = {
  uid: "07cc67f4-45d6-494b-adac-09b5cbc7e2b5",
  account_id: { iban: "FI21 1234 5600 0007 85" },
  name: "Everyday account",
  cash_account_type: "CACC",
  currency: "EUR",
  product: "Current account",
};
const balancesPayload = {
  balances: [
    {
      name: "Available",
      balance_amount: { currency: "EUR", amount: "1180.5" },
      balance_type: "ITAV",
      reference_date: "2026-01-15",
    },
    {
      name: "Booked",
      balance_amount: { currency: "EUR", amount: "1200" },
      balance_type: "CLBD",
      last_change_date_time: "2026-01-15T06:30:00+00:00",
    },
  ],
};
const transactionsPage = {
  transactions: [
    {
      entry_reference: "5561990681",
      transaction_amount: { currency: "EUR", amount: "12.3" },
      credit_debit_indicator: "DBIT",
      status: "BOOK",
      booking_date: "2026-01-14",
      value_date: "2026-01-14",
      creditor: { name: "Cafe Aalto" },
      debtor: null,
      remittance_information: ["Card purchase", "Cafe Aalto"],
    },
    {
      entry_reference: null,
      transaction_id: "tx-pending-1",
      transaction_amount: { currency: "EUR", amount: "2500.00" },
      credit_debit_indicator: "CRDT",
      status: "PDNG",
      transaction_date: "2026-01-15",
      debtor: { name: "Employer Oy" },
      creditor: null,
    },
    {
      entry_reference: "info-1",
      transaction_amount: { currency: "EUR", amount: "1.00" },
      credit_debit_indicator: "DBIT",
      status: "INFO",
      booking_date: "2026-01-13",
    },
  ],
  continuation_key: null,
};

describe("Enable Banking transform", () => {
  test("an account maps uid, IBAN without spaces, type and last four characters", () => {
    expect(transformEbAccount(accountPayload)).toEqual({
      externalId: accountPayload.uid,
      name: "Everyday account",
      type: "current",
      currency: "EUR",
      iban: "FI2112345600000785",
      mask: "0785",
    });
  });

  test("the closing booked balance is current, interim available is available, amounts as text", () => {
    const balance = transformEbBalance(balancesPayload, new Date("2026-01-15T09:00:00Z"));
    expect(balance).toEqual({
      current: "1200.00",
      available: "1180.50",
      currency: "EUR",
      asOf: new Date("2026-01-15T06:30:00Z"),
    });
  });

  test("DBIT is a negative amount, CRDT positive; BOOK is booked, PDNG pending, INFO dropped", () => {
    const rows = transformEbTransactions([transactionsPage as never], "2026-01-15");
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({
      externalId: "5561990681",
      status: "booked",
      amount: "-12.30",
      bookingDate: "2026-01-14",
      description: "Card purchase Cafe Aalto",
      counterpartyName: "Cafe Aalto",
    });
    expect(rows[1]).toMatchObject({
      // transaction_id "may change if the list of transactions is retrieved again": no identity.
      externalId: null,
      status: "pending",
      amount: "2500.00",
      bookingDate: "2026-01-15",
      counterpartyName: "Employer Oy",
    });
    for (const row of rows) expect(typeof row.amount).toBe("string");
  });

  test("a balance list with no readable amount is no balance; a payload that is no balance list fails naming the field", () => {
    expect(transformEbBalance({ balances: [{ balance_type: "CLBD" }] }, new Date())).toBeNull();
    expect(() => transformEbBalance({ balances: "none" }, new Date())).toThrow(/balances/);
  });
});

describe("Enable Banking client against the stub (real HTTPS, JWT checked)", () => {
  let stub: EnableBankingStub;
  let client: EnableBankingClient;
  const clock = createFakeClock(new Date().toISOString());

  beforeAll(async () => {
    stub = await startEnableBankingStub({ clock });
    stub.accounts.push({
      uid: "acc-1",
      iban: "FI2112345600000785",
      name: "Everyday",
      currency: "EUR",
      balance: "100.5",
      transactions: Array.from({ length: 5 }, (_, i) => ({
        entry_reference: `ref-${i}`,
        transaction_amount: { currency: "EUR", amount: `${i + 1}.00` },
        credit_debit_indicator: i % 2 === 0 ? ("DBIT" as const) : ("CRDT" as const),
        status: "BOOK" as const,
        booking_date: `2026-01-0${i + 1}`,
      })),
    });
    client = createEnableBankingClient({
      http: createProviderHttp({ caFile: stub.caFile, allowPrivate: false }),
      signer: await signerFromKeyFile(stub.applicationId, stub.keyFile),
      apiUrl: stub.url,
      clock,
    });
  });
  afterAll(() => stub.stop());

  test("authorisation, session, balances and every page of transactions", async () => {
    const banks = await client.listAspsps("FI");
    expect(banks[0]?.name).toBe("Stub Bank");
    const auth = await client.startAuth({
      bank: "Stub Bank",
      country: "FI",
      validUntil: new Date(clock.now().getTime() + 86_400_000),
      state: "state-1",
      redirectUrl: "https://svc.example/connect/callback",
    });
    expect(auth.url).toContain(auth.authorizationId);
    const session = await client.createSession(stub.approve(auth.authorizationId));
    expect(session.accounts.map((a) => a.uid)).toEqual(["acc-1"]);
    expect(session.validUntil.toISOString()).toBe(new Date(stub.sessionValidUntil).toISOString());
    expect((await client.getSession(session.sessionId)).status).toBe("linked");

    const balance = transformEbBalance(await client.balances("acc-1"), clock.now());
    expect(balance?.current).toBe("100.50");

    stub.calls.length = 0;
    const pages = await client.transactions("acc-1", "2026-01-01");
    expect(pages).toHaveLength(3);
    expect(stub.calls.filter((c) => c.includes("continuation_key"))).toHaveLength(2);
    const rows = transformEbTransactions(pages, "2026-01-15");
    expect(rows.map((r) => r.amount)).toEqual(["-1.00", "2.00", "-3.00", "4.00", "-5.00"]);

    await client.deleteSession(session.sessionId);
    expect(stub.sessions.get(session.sessionId)?.deleted).toBe(true);
  });

  test("each error answer becomes the matching error kind", async () => {
    const cases = [
      ["rate_limited", "rate_limited"],
      ["expired_session", "consent_expired"],
      ["revoked_session", "consent_revoked"],
      ["aspsp_error", "unavailable"],
      ["server_error", "unavailable"],
    ] as const;
    for (const [failureName, kind] of cases) {
      stub.failNext(failureName);
      const error = await failure(client.balances("acc-1"));
      expect(error.kind).toBe(kind);
      if (kind === "rate_limited") expect(error.retryAfterMs).toBe(120_000);
    }
  });

  test("a session past its valid_until is consent expired", async () => {
    const auth = await client.startAuth({
      bank: "Stub Bank",
      country: "FI",
      validUntil: new Date(clock.now().getTime() + 86_400_000),
      state: "s",
      redirectUrl: "https://svc.example/connect/callback",
    });
    const session = await client.createSession(stub.approve(auth.authorizationId));
    const saved = stub.sessionValidUntil;
    stub.sessionValidUntil = new Date(clock.now().getTime() - 1000).toISOString();
    expect((await failure(client.getSession(session.sessionId))).kind).toBe("consent_expired");
    stub.sessionValidUntil = saved;
  });

  test("a call signed with another key is refused by the stub as bad configuration", async () => {
    const { generateKeyPairSync } = await import("node:crypto");
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const { createEnableBankingSigner, importRsaPrivateKey } = await import(
      "../../../src/banking/providers/enable-banking/jwt.ts"
    );
    const pem = privateKey.export({ type: "pkcs1", format: "pem" }) as string;
    const wrong = createEnableBankingClient({
      http: createProviderHttp({ caFile: stub.caFile, allowPrivate: false }),
      signer: createEnableBankingSigner(stub.applicationId, await importRsaPrivateKey(pem, "test")),
      apiUrl: stub.url,
      clock,
    });
    const error = await failure(wrong.listAspsps("FI"));
    expect(error.kind).toBe("bad_config");
    expect(error.message).toContain("bad signature");
  });
});

function failure(promise: Promise<unknown>): Promise<ProviderError> {
  return rejectionOf(promise, ProviderError);
}
