import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import {
  completeLink,
  type LinkProof,
  removeConnection,
  startLink,
} from "../../src/banking/link.ts";
import { failuresBeforeError } from "../../src/banking/providers/errors.ts";
import { createProviderHttp } from "../../src/banking/providers/http.ts";
import { createProviders } from "../../src/banking/providers/registry.ts";
import { syncConnection } from "../../src/banking/sync.ts";
import { ApiError } from "../../src/core/errors.ts";
import type { Services } from "../../src/server/services.ts";
import { type EnableBankingStub, startEnableBankingStub } from "../support/enable-banking-stub.ts";
import { createFakeClock } from "../support/fake-clock.ts";
import { createTestPki } from "../support/pki.ts";
import { defaultEbBalances, enableBankingShape } from "../support/provider-fixtures.ts";
import { rejectionOf } from "../support/rejection.ts";
import { createTestServices } from "../support/services.ts";
import { type SimplefinStub, startSimplefinStub } from "../support/simplefin-stub.ts";
import { insertServiceAccount, storedEvents } from "./helpers.ts";

const clock = createFakeClock(new Date().toISOString());
let eb: EnableBankingStub;
let sf: SimplefinStub;
let services: Services;
let accountId: string;
/** SimpleFIN links of their own account: one account holds at most 10 connections. */
let sfAccountId: string;

beforeAll(async () => {
  const pki = await createTestPki();
  eb = await startEnableBankingStub({ pki, clock });
  sf = await startSimplefinStub(pki);
  eb.accounts.push({
    uid: "eb-acc-1",
    iban: "FI2112345600000785",
    name: "Everyday",
    currency: "EUR",
    balance: "1200.00",
    transactions: [
      {
        entry_reference: "r1",
        transaction_amount: { currency: "EUR", amount: "12.30" },
        credit_debit_indicator: "DBIT",
        status: "BOOK",
        booking_date: "2026-01-10",
        creditor: { name: "Cafe" },
      },
      {
        entry_reference: "r2",
        transaction_amount: { currency: "EUR", amount: "2500" },
        credit_debit_indicator: "CRDT",
        status: "BOOK",
        booking_date: "2026-01-11",
        debtor: { name: "Employer" },
      },
      {
        entry_reference: "r3",
        transaction_amount: { currency: "EUR", amount: "4.00" },
        credit_debit_indicator: "DBIT",
        status: "PDNG",
        value_date: "2026-01-12",
      },
    ],
  });
  sf.accounts.push({
    id: "ACT-1",
    name: "Checking",
    currency: "USD",
    balance: "500.00",
    "balance-date": Math.floor(clock.now().getTime() / 1000),
    transactions: [
      {
        id: "t1",
        posted: Math.floor(clock.now().getTime() / 1000) - 86_400,
        amount: "-20.00",
        description: "Groceries",
      },
    ],
  });
  services = await createTestServices({
    clock,
    config: {
      baseUrl: "https://svc.example.test",
      providerCaFile: pki.caFile,
      enableBankingApplicationId: eb.applicationId,
      enableBankingKeyFile: eb.keyFile,
      enableBankingApiUrl: eb.url,
    },
  });
  accountId = await insertServiceAccount(services);
  sfAccountId = await insertServiceAccount(services);
});
afterAll(() => {
  eb.stop();
  sf.stop();
});

async function connectionRow(id: string) {
  const { connections } = services.db.t;
  const [row] = await services.db.select().from(connections).where(eq(connections.id, id));
  return row;
}

async function statusEvents(connectionId: string): Promise<string[]> {
  return (await storedEvents(services))
    .filter((e) => e.type === "connection.status.changed" && e.data.connection_id === connectionId)
    .map((e) => e.data.status as string);
}

/** The account's owner signed in at the callback (these links start as from the CLI). */
const owner = (): LinkProof => ({ signedIn: { serviceAccountId: accountId, isOperator: false } });

function apiError(promise: Promise<unknown>): Promise<ApiError> {
  return rejectionOf(promise, ApiError);
}

/** Starts an Enable Banking link and returns the state the bank's redirect would carry back. */
async function startEb(): Promise<{
  connectionId: string;
  state: string;
  authorizationId: string;
}> {
  const start = await startLink(services, accountId, {
    provider: "enable_banking",
    country: "fi",
    bank: "Stub Bank",
  });
  if (start.kind !== "redirect") throw new Error("expected a redirect");
  const authorizationId = new URL(start.url).searchParams.get("id") ?? "";
  return { connectionId: start.connectionId, state: eb.lastState, authorizationId };
}

describe("Enable Banking link flow", () => {
  test("start -> awaiting_auth with the bank's URL; callback -> linked with accounts and a first sync", async () => {
    const { connectionId, state, authorizationId } = await startEb();
    expect((await connectionRow(connectionId))?.status).toBe("awaiting_auth");
    const result = await completeLink(services, {
      provider: "enable_banking",
      proof: owner(),
      state,
      code: eb.approve(authorizationId),
    });
    expect(result.status).toBe("linked");
    expect(result.firstSync?.outcome).toBe("succeeded");
    expect(await statusEvents(connectionId)).toEqual(["initiated", "awaiting_auth", "linked"]);
    const row = await connectionRow(connectionId);
    expect(row?.consentExpiresAt?.toISOString()).toBe(new Date(eb.sessionValidUntil).toISOString());
    const { transactions } = services.db.t;
    const rows = await services.db.select().from(transactions);
    expect(rows.map((r) => r.amount).sort()).toEqual(["-12.30", "-4.00", "2500.00"]);
    // The secret is sealed: the session id is nowhere in the row.
    const sessionId = [...eb.sessions.keys()].at(-1) ?? "";
    expect(JSON.stringify(row)).not.toContain(sessionId);
    expect(row?.providerSecret?.startsWith("sb1.")).toBe(true);
  });

  test('a session listing an account without uid and one with "iban": null links; the uid-less one is skipped and told in the notice', async () => {
    const { connectionId, state, authorizationId } = await startEb();
    const shape = enableBankingShape("account-without-uid");
    const [usable] = enableBankingShape("iban-null").session_accounts ?? [];
    eb.verbatim = {
      sessionAccounts: [
        ...(shape.session_accounts ?? []).slice(1),
        { ...usable, uid: "iban-null-1" },
      ],
      byUid: new Map([["iban-null-1", { balances: defaultEbBalances, reads: shape.reads }]]),
    };
    try {
      const result = await completeLink(services, {
        provider: "enable_banking",
        proof: owner(),
        state,
        code: eb.approve(authorizationId),
      });
      expect(result).toMatchObject({ status: "linked", firstSync: { outcome: "succeeded" } });
    } finally {
      eb.verbatim = undefined;
    }
    const { bankAccounts } = services.db.t;
    const accounts = await services.db
      .select()
      .from(bankAccounts)
      .where(eq(bankAccounts.connectionId, connectionId));
    expect(accounts.map((a) => [a.externalId, a.iban])).toEqual([["iban-null-1", null]]);
    expect((await connectionRow(connectionId))?.notice).toBe(
      "1 account without an identifier was skipped",
    );
  });

  test("the state works once, and not after it expired", async () => {
    const first = await startEb();
    await completeLink(services, {
      provider: "enable_banking",
      proof: owner(),
      state: first.state,
      code: eb.approve(first.authorizationId),
    });
    const replay = await apiError(
      completeLink(services, {
        provider: "enable_banking",
        proof: owner(),
        state: first.state,
        code: "x",
      }),
    );
    expect(replay.code).toBe("invalid_request");
    const late = await startEb();
    clock.advance(2 * 60 * 60 * 1000);
    const expired = await apiError(
      completeLink(services, {
        provider: "enable_banking",
        proof: owner(),
        state: late.state,
        code: "x",
      }),
    );
    expect(expired.code).toBe("code_expired");
  });

  test("a connection still awaiting the user's approval is left alone by a sync", async () => {
    const { connectionId } = await startEb();
    const providers = createProviders(clock, {
      config: services.config,
      masterKey: services.masterKey.bytes,
    });
    const result = await syncConnection(services, connectionId, { trigger: "cli", providers });
    expect(result.outcome).toBe("succeeded");
    expect((await connectionRow(connectionId))?.status).toBe("awaiting_auth");
  });

  test("a user who declines at the bank leaves the connection rejected", async () => {
    const { connectionId, state } = await startEb();
    const result = await completeLink(services, {
      provider: "enable_banking",
      proof: owner(),
      state,
      error: "access_denied",
    });
    expect(result.status).toBe("rejected");
    expect(await statusEvents(connectionId)).toEqual(["initiated", "awaiting_auth", "rejected"]);
  });

  test("an expired session moves the connection to expired; removal deletes the session at the provider", async () => {
    const { connectionId, state, authorizationId } = await startEb();
    await completeLink(services, {
      provider: "enable_banking",
      proof: owner(),
      state,
      code: eb.approve(authorizationId),
    });
    const providers = createProviders(clock, {
      config: services.config,
      masterKey: services.masterKey.bytes,
    });
    // Past the budget's next allowed pull.
    clock.advance(13 * 60 * 60 * 1000);
    eb.failNext("expired_session");
    const result = await syncConnection(services, connectionId, { trigger: "cli", providers });
    expect(result.outcome).toBe("failed");
    expect((await connectionRow(connectionId))?.status).toBe("expired");
    const sessionId = [...eb.sessions.keys()].at(-1) ?? "";
    const removed = await removeConnection(services, connectionId);
    expect(removed.providerSessionDeleted).toBe(true);
    expect(eb.sessions.get(sessionId)?.deleted).toBe(true);
    expect(await connectionRow(connectionId)).toBeUndefined();
  });
});

describe("SimpleFIN link flow", () => {
  // An account of its own per test: each leaves connections behind, and an account holds at
  // most 10 that are not rejected or expired (src/banking/link-limits.ts).
  beforeEach(async () => {
    sfAccountId = await insertServiceAccount(services);
  });

  test("a pasted setup token links the connection with its accounts and a first sync", async () => {
    const token = sf.setupToken();
    const result = await completeLink(services, {
      provider: "simplefin",
      serviceAccountId: sfAccountId,
      setupToken: token,
    });
    expect(result.status).toBe("linked");
    expect(result.firstSync?.outcome).toBe("succeeded");
    expect(await statusEvents(result.connectionId)).toEqual(["initiated", "linked"]);
    const row = await connectionRow(result.connectionId);
    expect(row?.providerSecret?.startsWith("sb1.")).toBe(true);
    expect(JSON.stringify(row)).not.toContain("@localhost");

    const again = await apiError(
      completeLink(services, {
        provider: "simplefin",
        serviceAccountId: sfAccountId,
        setupToken: token,
      }),
    );
    expect(again.message).toContain("new setup token");
  });

  test("the access URL is sealed and stored when the claim answers: a first read that fails (5xx) leaves a connection the next sync completes", async () => {
    sf.failNextWith(503);
    const claimsBefore = sf.claims;
    const result = await completeLink(services, {
      provider: "simplefin",
      serviceAccountId: sfAccountId,
      setupToken: sf.setupToken(),
    });
    expect(sf.claims).toBe(claimsBefore + 1);
    expect(result.firstSync?.outcome).toBe("failed");
    const kept = await connectionRow(result.connectionId);
    expect(kept?.status).toBe("initiated");
    expect(kept?.providerSecret?.startsWith("sb1.")).toBe(true);
    expect(JSON.stringify(kept)).not.toContain(sf.issued.at(-1) ?? "?");
    const { bankAccounts } = services.db.t;
    const before = await services.db
      .select()
      .from(bankAccounts)
      .where(eq(bankAccounts.connectionId, result.connectionId));
    expect(before).toEqual([]);

    // The next sync (no new token: it was spent) links the connection and brings the data.
    const providers = createProviders(clock, {
      config: services.config,
      masterKey: services.masterKey.bytes,
    });
    clock.advance(61 * 60 * 1000);
    const next = await syncConnection(services, result.connectionId, {
      trigger: "schedule",
      providers,
    });
    expect(next.outcome).toBe("succeeded");
    expect((await connectionRow(result.connectionId))?.status).toBe("linked");
    const after = await services.db
      .select()
      .from(bankAccounts)
      .where(eq(bankAccounts.connectionId, result.connectionId));
    expect(after.map((a) => a.externalId)).toEqual(["ACT-1"]);
    expect(await statusEvents(result.connectionId)).toEqual(["initiated", "linked"]);
  });

  test("a first read that times out after the claim leaves a connection the next sync completes", async () => {
    const impatient = {
      ...services,
      http: createProviderHttp({
        caFile: services.config.providerCaFile,
        allowPrivate: true,
        timeoutMs: 300,
      }),
    };
    sf.hangNext();
    const result = await completeLink(impatient, {
      provider: "simplefin",
      serviceAccountId: sfAccountId,
      setupToken: sf.setupToken(),
    });
    expect(result.firstSync?.outcome).toBe("failed");
    expect(result.firstSync?.outcome === "failed" && result.firstSync.error).toContain(
      "no answer within 300 ms",
    );
    const kept = await connectionRow(result.connectionId);
    expect(kept?.status).toBe("initiated");
    expect(kept?.providerSecret?.startsWith("sb1.")).toBe(true);
    clock.advance(61 * 60 * 1000);
    const providers = createProviders(clock, {
      config: services.config,
      masterKey: services.masterKey.bytes,
    });
    const next = await syncConnection(services, result.connectionId, {
      trigger: "schedule",
      providers,
    });
    expect(next.outcome).toBe("succeeded");
    expect((await connectionRow(result.connectionId))?.status).toBe("linked");
  });

  test("a provider outage becomes error only after repeated failures, and linked on the next good sync", async () => {
    const { connectionId } = await completeLink(services, {
      provider: "simplefin",
      serviceAccountId: sfAccountId,
      setupToken: sf.setupToken(),
    });
    const providers = createProviders(clock, {
      config: services.config,
      masterKey: services.masterKey.bytes,
    });
    const seen: string[] = [];
    for (let i = 0; i < failuresBeforeError; i++) {
      clock.advance(61 * 60 * 1000);
      sf.failNextWith(503);
      await syncConnection(services, connectionId, { trigger: "cli", providers });
      seen.push((await connectionRow(connectionId))?.status ?? "");
    }
    expect(seen).toEqual([...Array(failuresBeforeError - 1).fill("linked"), "error"]);
    clock.advance(61 * 60 * 1000);
    const good = await syncConnection(services, connectionId, { trigger: "cli", providers });
    expect(good.outcome).toBe("succeeded");
    const row = await connectionRow(connectionId);
    expect(row?.status).toBe("linked");
    expect(row?.consecutiveFailures).toBe(0);
    // After a good sync the read window starts a week before it, not 90 days back.
    const start = Number(/start-date=(\d+)/.exec(sf.calls.at(-1) ?? "")?.[1]);
    const daysBack = (clock.now().getTime() / 1000 - start) / 86_400;
    expect(daysBack).toBeGreaterThan(7);
    expect(daysBack).toBeLessThan(10);
  });

  test("a rate limit leaves the status alone and sets the next allowed pull", async () => {
    const { connectionId } = await completeLink(services, {
      provider: "simplefin",
      serviceAccountId: sfAccountId,
      setupToken: sf.setupToken(),
    });
    const providers = createProviders(clock, {
      config: services.config,
      masterKey: services.masterKey.bytes,
    });
    clock.advance(61 * 60 * 1000);
    sf.failNextWith(429);
    const limited = await syncConnection(services, connectionId, { trigger: "cli", providers });
    expect(limited).toEqual({
      connectionId,
      outcome: "too_soon",
      nextAllowedAt: new Date(clock.now().getTime() + 60_000).toISOString(),
    });
    const row = await connectionRow(connectionId);
    expect(row?.status).toBe("linked");
    expect(row?.nextPullAt?.getTime()).toBe(clock.now().getTime() + 60_000);
    const early = await syncConnection(services, connectionId, {
      trigger: "cli",
      force: true,
      providers,
    });
    expect(early.outcome).toBe("too_soon");
  });
});

test("the SQLite database file holds no provider secret in the clear", async () => {
  if (services.config.databaseUrl) return; // PostgreSQL: the row checks above cover it
  const files = ["svc.db", "svc.db-wal"]
    .map((name) => join(services.config.dataDir, name))
    .filter((path) => existsSync(path))
    .map((path) => readFileSync(path));
  expect(files.length).toBeGreaterThan(0);
  for (const file of files) {
    for (const [sessionId] of eb.sessions) expect(file.includes(sessionId)).toBe(false);
    expect(file.includes("@localhost")).toBe(false);
  }
});
