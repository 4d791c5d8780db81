import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ProviderError } from "../../../src/banking/providers/errors.ts";
import { createProviderHttp } from "../../../src/banking/providers/http.ts";
import {
  claimUrlFromSetupToken,
  createSimplefinClient,
  type SimplefinClient,
} from "../../../src/banking/providers/simplefin/client.ts";
import {
  errorsToProviderError,
  parseAccountSet,
  transformAccountSet,
} from "../../../src/banking/providers/simplefin/transform.ts";
import { rejectionOf } from "../../support/rejection.ts";
import { type SimplefinStub, startSimplefinStub } from "../../support/simplefin-stub.ts";

// An account set shaped as in the SimpleFIN protocol's documentation.
const accountSet = {
  errors: [],
  accounts: [
    {
      org: { domain: "mybank.com", "sfin-url": "https://sfin.mybank.com", name: "My Bank" },
      id: "2930002",
      name: "Savings",
      currency: "USD",
      balance: "100.23",
      "available-balance": "75.23",
      "balance-date": 978366153,
      transactions: [
        {
          id: "12394832938403",
          posted: 793090572,
          amount: "-33293.43",
          description: "Uncle Frank's Bait Shop",
        },
        {
          id: "pending-7",
          posted: 0,
          amount: "12.5",
          description: "Refund",
          pending: true,
          transacted_at: 978300000,
        },
      ],
    },
    {
      org: { domain: "mybank.com", name: "My Bank" },
      id: "custom-1",
      name: "Air miles",
      currency: "https://www.example.com/flight-miles",
      balance: "10",
      "balance-date": 978366153,
    },
  ],
};

describe("SimpleFIN transform", () => {
  test("accounts, balances (balance-date as fetched time) and transactions map into our model", () => {
    const [savings, ...rest] = transformAccountSet(parseAccountSet(accountSet), "2001-01-01");
    expect(rest).toHaveLength(0); // the custom (non-ISO) currency account is left out
    expect(savings?.account).toEqual({
      externalId: "2930002",
      name: "Savings",
      type: "other",
      currency: "USD",
      iban: null,
      mask: null,
    });
    expect(savings?.balance).toEqual({
      current: "100.23",
      available: "75.23",
      currency: "USD",
      asOf: new Date(978366153 * 1000),
    });
    expect(savings?.transactions).toEqual([
      expect.objectContaining({
        externalId: "12394832938403",
        status: "booked",
        amount: "-33293.43",
        bookingDate: "1995-02-18",
        description: "Uncle Frank's Bait Shop",
      }),
      expect.objectContaining({
        externalId: "pending-7",
        status: "pending",
        amount: "12.50",
        bookingDate: "2000-12-31",
      }),
    ]);
  });

  test("the errors array becomes an error kind for the status table", () => {
    const v1 = (text: string) => [{ code: null, text }];
    expect(errorsToProviderError([])).toBeNull();
    expect(errorsToProviderError(v1("You must reauthenticate with My Bank"))?.kind).toBe(
      "consent_revoked",
    );
    expect(errorsToProviderError(v1("Rate limit exceeded"))?.kind).toBe("rate_limited");
    expect(errorsToProviderError(v1("My Bank is not responding"))?.kind).toBe("unavailable");
    // Version 2 names a connection that needs the user's sign-in by its code.
    expect(
      errorsToProviderError([{ code: "con.auth", text: "Authentication required" }])?.kind,
    ).toBe("consent_revoked");
  });

  test("a setup token must be base64 of an https claim URL", () => {
    const good = Buffer.from("https://bridge.example/simplefin/claim/abc").toString("base64");
    expect(claimUrlFromSetupToken(good).pathname).toBe("/simplefin/claim/abc");
    expect(() => claimUrlFromSetupToken("not base64!")).toThrow(/base64/);
    expect(() =>
      claimUrlFromSetupToken(Buffer.from("http://bridge.example/c").toString("base64")),
    ).toThrow(/https/);
  });
});

describe("SimpleFIN client against the stub (real HTTPS)", () => {
  let stub: SimplefinStub;
  let client: SimplefinClient;

  beforeAll(async () => {
    stub = await startSimplefinStub();
    stub.accounts.push({
      id: "ACT-1",
      name: "Checking",
      currency: "USD",
      balance: "500.00",
      "balance-date": 1_768_000_000,
      transactions: [
        { id: "t1", posted: 1_767_900_000, amount: "-20.00", description: "Groceries" },
        { id: "t2", posted: 0, amount: "-5.00", description: "Coffee", pending: true },
      ],
    });
    client = createSimplefinClient({
      http: createProviderHttp({ caFile: stub.caFile, allowPrivate: true }),
      now: () => Date.now(),
    });
  });
  afterAll(() => stub.stop());

  test("a setup token is claimed exactly once; the access URL then reads accounts with pending, pinned to protocol version 1", async () => {
    const token = stub.setupToken();
    const accessUrl = await client.claim(token);
    expect(stub.claims).toBe(1);
    const again = await failure(client.claim(token));
    expect(again.kind).toBe("bad_config");
    expect(again.message).toContain("new setup token");
    expect(stub.claims).toBe(1);

    const set = await client.accounts(accessUrl, new Date(1_767_000_000_000));
    expect(stub.calls.at(-1)).toBe(
      "GET /simplefin/accounts?start-date=1767000000&pending=1&version=1",
    );
    const [checking] = transformAccountSet(set, "2026-01-15");
    expect(checking?.transactions.map((t) => [t.externalId, t.status])).toEqual([
      ["t1", "booked"],
      ["t2", "pending"],
    ]);
  });

  test("a claim URL on a private address is refused when the guard is on", async () => {
    const guarded = createSimplefinClient({
      http: createProviderHttp({ caFile: stub.caFile, allowPrivate: false }),
      now: () => Date.now(),
    });
    const error = await failure(guarded.claim(stub.setupToken()));
    expect(error.kind).toBe("bad_config");
    expect(error.message).toContain("publicly reachable");
  });

  test("HTTP failures and a wrong access URL map to error kinds", async () => {
    const accessUrl = await client.claim(stub.setupToken());
    stub.failNextWith(429);
    const limited = await failure(client.accounts(accessUrl, undefined));
    expect(limited.kind).toBe("rate_limited");
    expect(limited.retryAfterMs).toBe(60_000);
    stub.failNextWith(503);
    expect((await failure(client.accounts(accessUrl, undefined))).kind).toBe("unavailable");
    const wrong = accessUrl.replace(/\/\/[^:]+:[^@]+@/, "//nobody:wrong@");
    const revoked = await failure(client.accounts(wrong, undefined));
    expect(revoked.kind).toBe("consent_revoked");
    expect(revoked.message).not.toContain("wrong");
  });
});

function failure(promise: Promise<unknown>): Promise<ProviderError> {
  return rejectionOf(promise, ProviderError);
}
