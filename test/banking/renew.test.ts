import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { asc, eq } from "drizzle-orm";
import type { Services } from "../../src/server/services.ts";
import { installedDir, runSvc } from "../support/cli.ts";
import type { EnableBankingStub } from "../support/enable-banking-stub.ts";
import { createFakeClock } from "../support/fake-clock.ts";
import { createTestPki } from "../support/pki.ts";
import { type PortalClient, signedInOwner, testPassword } from "../support/portal.ts";
import { createRealBankServices } from "../support/real-bank-services.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { startSimplefinStub } from "../support/simplefin-stub.ts";
import { makeTempDir } from "../support/temp.ts";
import { storedEvents } from "./helpers.ts";

const clock = createFakeClock("2026-02-10T09:00:00.000Z");
let services: Services;
let eb: EnableBankingStub;
let stopStubs: () => void;
let server: TestServer;

beforeAll(async () => {
  ({ services, eb, stopStubs } = await createRealBankServices({ clock }));
  eb.sessionScopedUids = true;
  eb.accounts.push({
    uid: "eb-acc",
    iban: "FI2112345600000785",
    name: "Everyday",
    currency: "EUR",
    balance: "100.00",
    transactions: [
      {
        entry_reference: "r1",
        transaction_amount: { currency: "EUR", amount: "12.30" },
        credit_debit_indicator: "DBIT",
        status: "BOOK",
        booking_date: "2026-02-01",
      },
      {
        entry_reference: "r2",
        transaction_amount: { currency: "EUR", amount: "40.00" },
        credit_debit_indicator: "CRDT",
        status: "BOOK",
        booking_date: "2026-02-02",
      },
    ],
  });
  server = startTestServer(services);
});
afterAll(async () => {
  await server.stop();
  stopStubs();
});

/** What Renew must keep: the connection's accounts and transactions, by id. */
async function idsOf(connectionId: string) {
  const { bankAccounts, transactions } = services.db.t;
  const accounts = await services.db
    .select({ id: bankAccounts.id, externalId: bankAccounts.externalId })
    .from(bankAccounts)
    .where(eq(bankAccounts.connectionId, connectionId))
    .orderBy(asc(bankAccounts.id));
  const rows = await services.db
    .select({ id: transactions.id, externalId: transactions.externalId })
    .from(transactions)
    .innerJoin(bankAccounts, eq(bankAccounts.id, transactions.accountId))
    .where(eq(bankAccounts.connectionId, connectionId))
    .orderBy(asc(transactions.id));
  return {
    accountIds: accounts.map((a) => a.id),
    uids: accounts.map((a) => a.externalId),
    transactionIds: rows.map((r) => r.id),
  };
}

async function statusMoves(connectionId: string): Promise<string[]> {
  return (await storedEvents(services))
    .filter((e) => e.type === "connection.status.changed" && e.data.connection_id === connectionId)
    .map((e) => e.data.status as string);
}

/** Follows the bank's redirect back as the browser that started it (its link cookie). */
async function approveAtBank(browser: PortalClient, redirectUrl: string, decline = false) {
  const id = new URL(redirectUrl).searchParams.get("id") ?? "";
  const answer = decline ? "error=access_denied" : `code=${eb.approve(id)}`;
  const response = await fetch(
    `${server.baseUrl}/connect/callback?state=${encodeURIComponent(eb.lastState)}&${answer}`,
    { headers: { Cookie: [...browser.otherCookies.values()].join("; ") } },
  );
  return { status: response.status, text: await response.text() };
}

/** Past the budget's 12-hour wait, signed in again (the portal's idle limit is 12 hours too). */
async function nextDay(owner: { client: PortalClient; email: string }) {
  clock.advance(13 * 60 * 60 * 1000);
  const signedIn = await owner.client.request("POST", "/session", {
    email: owner.email,
    password: testPassword,
  });
  expect(signedIn.status).toBe(201);
}

async function linkedEnableBanking(browser: PortalClient): Promise<string> {
  const started = await browser.json<{ connection_id: string; redirect_url: string }>(
    "POST",
    "/bank-links/enable-banking",
    { country: "FI", bank: "Stub Bank" },
  );
  expect((await approveAtBank(browser, started.body.redirect_url)).status).toBe(200);
  return started.body.connection_id;
}

describe("Renew through the portal API (Enable Banking)", () => {
  test("an expired connection renewed keeps its connection_id, account_ids and transaction_ids although the new session renames every account", async () => {
    const owner = await signedInOwner(services, server.baseUrl);
    const connectionId = await linkedEnableBanking(owner.client);
    const before = await idsOf(connectionId);
    expect(before.transactionIds).toHaveLength(2);
    expect(before.uids).toEqual(["eb-acc.s1"]);
    const firstSession = [...eb.sessions.keys()].at(-1) ?? "";

    // The consent ends: the next pull finds the session expired.
    await nextDay(owner);
    const session = eb.sessions.get(firstSession);
    if (session) session.status = "EXPIRED";
    await owner.client.json("POST", `/connections/${connectionId}/sync`);
    const expired = await owner.client.json<{ data: { id: string; status: string }[] }>(
      "GET",
      "/connections",
    );
    expect(expired.body.data.find((c) => c.id === connectionId)?.status).toBe("expired");

    const renew = await owner.client.json<{ connection_id: string; redirect_url: string }>(
      "POST",
      `/bank-links/${connectionId}/renew`,
      {},
    );
    expect(renew.status).toBe(200);
    expect(renew.body.connection_id).toBe(connectionId);
    const page = await approveAtBank(owner.client, renew.body.redirect_url);
    expect(page.status).toBe(200);
    expect(page.text).toContain("Your bank is connected");

    const after = await idsOf(connectionId);
    expect(after.accountIds).toEqual(before.accountIds);
    expect(after.transactionIds).toEqual(before.transactionIds);
    // The account is read under the new session's uid.
    expect(after.uids).toEqual(["eb-acc.s2"]);
    const list = await owner.client.json<{
      data: { id: string; status: string; consentExpiresAt: string | null }[];
    }>("GET", "/connections");
    expect(list.body.data.filter((c) => c.status !== "rejected").map((c) => c.id)).toEqual([
      connectionId,
    ]);
    expect(list.body.data[0]?.status).toBe("linked");
    expect(await statusMoves(connectionId)).toEqual([
      "initiated",
      "awaiting_auth",
      "linked",
      "expired",
      "linked",
    ]);
    // The old session is given up at the provider.
    expect(eb.sessions.get(firstSession)?.deleted).toBe(true);
  });

  test("a suspended connection renews the same way; a renewal declined at the bank leaves the connection as it was", async () => {
    const owner = await signedInOwner(services, server.baseUrl);
    const connectionId = await linkedEnableBanking(owner.client);
    const before = await idsOf(connectionId);
    await nextDay(owner);
    eb.failNext("revoked_session");
    await owner.client.json("POST", `/connections/${connectionId}/sync`);
    const declinedStart = await owner.client.json<{ redirect_url: string }>(
      "POST",
      `/bank-links/${connectionId}/renew`,
      {},
    );
    const declined = await approveAtBank(owner.client, declinedStart.body.redirect_url, true);
    expect(declined.text).toContain("nothing was connected");
    expect(await statusMoves(connectionId)).toEqual([
      "initiated",
      "awaiting_auth",
      "linked",
      "suspended",
    ]);
    const again = await owner.client.json<{ redirect_url: string }>(
      "POST",
      `/bank-links/${connectionId}/renew`,
      {},
    );
    expect((await approveAtBank(owner.client, again.body.redirect_url)).status).toBe(200);
    const after = await idsOf(connectionId);
    expect(after.accountIds).toEqual(before.accountIds);
    expect(after.transactionIds).toEqual(before.transactionIds);
    expect((await statusMoves(connectionId)).slice(-2)).toEqual(["suspended", "linked"]);
  });

  test("another account's connection cannot be renewed, and a sandbox connection has no consent to renew", async () => {
    const owner = await signedInOwner(services, server.baseUrl);
    const stranger = await signedInOwner(services, server.baseUrl);
    const connectionId = await linkedEnableBanking(owner.client);
    const foreign = await stranger.client.json("POST", `/bank-links/${connectionId}/renew`, {});
    expect(foreign.status).toBe(404);
    const sandbox = await owner.client.json<{ id: string }>("POST", "/connections/sandbox", {});
    const refused = await owner.client.json<{ error: { code: string } }>(
      "POST",
      `/bank-links/${sandbox.body.id}/renew`,
      {},
    );
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("invalid_state");
  });
});

describe("Renew from the CLI (SimpleFIN)", () => {
  test("svc connections renew ID --setup-token brings a suspended connection back to linked with the same ids", async () => {
    const pki = await createTestPki();
    const sf = await startSimplefinStub(pki);
    try {
      const posted = Math.floor(clock.now().getTime() / 1000) - 86_400;
      sf.accounts.push({
        id: "ACT-7",
        name: "Checking",
        currency: "USD",
        balance: "10.00",
        "balance-date": posted,
        transactions: [{ id: "t-1", posted, amount: "-3.00", description: "Coffee" }],
      });
      const cwd = await installedDir(makeTempDir("svc-renew-cli"));
      const env = {
        SVC_PROVIDER_CA_FILE: pki.caFile,
        SVC_UNSAFE_ALLOW_PRIVATE_TARGETS: "true",
      };
      const svc = (...argv: string[]) => runSvc([...argv, "--json"], { cwd, env, clock });
      const account = (await svc("accounts", "create", "--email", "cli@example.com")).json<{
        id: string;
      }>().id;
      const linked = await svc(
        "connect",
        "simplefin",
        "--account",
        account,
        "--setup-token",
        sf.setupToken(),
      );
      const { connection_id: connectionId } = linked.json<{ connection_id: string }>();
      const list = async () =>
        (await svc("connections", "list", "--account", account)).json<
          { id: string; status: string; consent_expires_at: string | null }[]
        >();
      // The Bridge revokes the access: the next read answers 403 and the connection is suspended.
      clock.advance(61 * 60 * 1000);
      sf.failNextWith(403);
      await svc("sync", "--connection", connectionId);
      expect((await list()).find((c) => c.id === connectionId)?.status).toBe("suspended");
      const accountsBefore = await svc("accounts", "list", "--account", account);

      clock.advance(61 * 60 * 1000);
      const renewed = await svc(
        "connections",
        "renew",
        connectionId,
        "--setup-token",
        sf.setupToken(),
      );
      expect(renewed.code).toBe(0);
      expect(renewed.json<{ connection_id: string; status: string }>()).toMatchObject({
        connection_id: connectionId,
        status: "linked",
      });
      const current = await list();
      expect(current.map((c) => [c.id, c.status])).toEqual([[connectionId, "linked"]]);
      expect(current[0]?.consent_expires_at).toBeNull();
      expect((await svc("accounts", "list", "--account", account)).stdout).toBe(
        accountsBefore.stdout,
      );
      expect(sf.claims).toBe(2);
    } finally {
      sf.stop();
    }
  });
});
