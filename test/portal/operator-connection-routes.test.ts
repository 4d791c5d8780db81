// Operators and any account's bank connections over real HTTP: the list with ids,
// and Remove, which does what the owner's Remove does (the same feature function): the
// connection goes with its accounts, balances and transactions, and an Enable Banking session
// is ended at the provider. Owners get 403, unknown ids 404, a foreign Origin 403.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq, inArray } from "drizzle-orm";
import { completeLink, startLink } from "../../src/banking/link.ts";
import type { Services } from "../../src/server/services.ts";
import { type EnableBankingStub, startEnableBankingStub } from "../support/enable-banking-stub.ts";
import { createFakeClock } from "../support/fake-clock.ts";
import { createTestPki } from "../support/pki.ts";
import { type PortalClient, signedInOwner } from "../support/portal.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { createTestServices } from "../support/services.ts";

const clock = createFakeClock(new Date().toISOString());
let eb: EnableBankingStub;
let services: Services;
let server: TestServer;
let operator: PortalClient;

beforeAll(async () => {
  const pki = await createTestPki();
  eb = await startEnableBankingStub({ pki, clock });
  eb.accounts.push({
    uid: "eb-1",
    iban: "FI2112345600000785",
    name: "Everyday",
    currency: "EUR",
    balance: "10.00",
    transactions: [],
  });
  services = await createTestServices({
    clock,
    config: {
      providerCaFile: pki.caFile,
      enableBankingApplicationId: eb.applicationId,
      enableBankingKeyFile: eb.keyFile,
      enableBankingApiUrl: eb.url,
    },
  });
  server = startTestServer(services);
  ({ client: operator } = await signedInOwner(services, server.baseUrl, { isOperator: true }));
});
afterAll(async () => {
  await server.stop();
  eb.stop();
});

interface OperatorConnection {
  id: string;
  serviceAccountId: string;
  provider: string;
  institution: string;
  status: string;
  accounts: { id: string; name: string; type: string; currency: string }[];
}
type ErrorAnswer = { error: { code: string; message: string } };
interface Removed {
  id: string;
  serviceAccountId: string;
  removed: boolean;
  providerSessionDeleted: boolean;
}

/** An owner with a synced sandbox connection (accounts, balances, transactions). */
async function ownerWithSyncedSandbox() {
  const owner = await signedInOwner(services, server.baseUrl);
  const connected = await owner.client.json<{ id: string }>("POST", "/connections/sandbox", {
    seed: 7,
  });
  expect(connected.status).toBe(201);
  const synced = await owner.client.json<{ outcome: string }>(
    "POST",
    `/connections/${connected.body.id}/sync`,
  );
  expect(synced.body.outcome).toBe("succeeded");
  return { ...owner, connectionId: connected.body.id };
}

/** How many rows the connection still has in each table that holds its data. */
async function rowsOf(connectionId: string) {
  const { db } = services;
  const { balances, bankAccounts, connections, transactions } = db.t;
  const accounts = await db
    .select({ id: bankAccounts.id })
    .from(bankAccounts)
    .where(eq(bankAccounts.connectionId, connectionId));
  const ids = accounts.map((a) => a.id);
  const count = async (rows: Promise<unknown[]>) => (await rows).length;
  return {
    connections: await count(db.select().from(connections).where(eq(connections.id, connectionId))),
    bankAccounts: ids.length,
    balances:
      ids.length === 0
        ? 0
        : await count(db.select().from(balances).where(inArray(balances.accountId, ids))),
    transactions:
      ids.length === 0
        ? 0
        : await count(db.select().from(transactions).where(inArray(transactions.accountId, ids))),
  };
}

describe("portal: operators and any account's connections", () => {
  test("an operator lists an account's connections with connection and bank account ids, never balances or account numbers", async () => {
    const owner = await ownerWithSyncedSandbox();
    const list = await operator.json<{ data: OperatorConnection[] }>(
      "GET",
      `/operator/connections?account=${owner.accountId}`,
    );
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(1);
    const [connection] = list.body.data;
    expect(connection).toMatchObject({
      id: owner.connectionId,
      serviceAccountId: owner.accountId,
      provider: "sandbox",
      status: "linked",
    });
    const own = await owner.client.json<{ data: { accounts: { id: string }[] }[] }>(
      "GET",
      "/connections",
    );
    expect(connection?.accounts.map((a) => a.id)).toEqual(
      own.body.data[0]?.accounts.map((a) => a.id) ?? [],
    );
    expect(connection?.accounts.length).toBeGreaterThanOrEqual(2);
    const text = JSON.stringify(list.body);
    expect(text).not.toMatch(/balance|iban|mask|provider_?secret/i);

    const unknown = await operator.json<ErrorAnswer>(
      "GET",
      `/operator/connections?account=${crypto.randomUUID()}`,
    );
    expect(unknown.status).toBe(404);
    const bad = await operator.json<ErrorAnswer>("GET", "/operator/connections?account=x");
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBe("account: must be a service account id");
  });

  test("an operator's Remove does what the owner's Remove does: the connection goes with its accounts, balances and transactions, for the owner too", async () => {
    const byOwner = await ownerWithSyncedSandbox();
    const byOperator = await ownerWithSyncedSandbox();
    const before = await rowsOf(byOperator.connectionId);
    expect(before.bankAccounts).toBeGreaterThanOrEqual(2);
    expect(before.balances).toBe(before.bankAccounts);
    expect(before.transactions).toBeGreaterThan(0);

    const ownerRemoval = await byOwner.client.json<{ removed: boolean }>(
      "DELETE",
      `/bank-links/${byOwner.connectionId}`,
    );
    expect(ownerRemoval.status).toBe(200);
    const removed = await operator.json<Removed>(
      "DELETE",
      `/operator/connections/${byOperator.connectionId}`,
    );
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({
      id: byOperator.connectionId,
      serviceAccountId: byOperator.accountId,
      removed: true,
      providerSessionDeleted: false,
    });
    const gone = { connections: 0, bankAccounts: 0, balances: 0, transactions: 0 };
    expect(await rowsOf(byOwner.connectionId)).toEqual(gone);
    expect(await rowsOf(byOperator.connectionId)).toEqual(gone);
    // Its owner no longer sees it, and neither does the operator's list.
    const own = await byOperator.client.json<{ data: unknown[] }>("GET", "/connections");
    expect(own.body.data).toEqual([]);
    const listed = await operator.json<{ data: unknown[] }>(
      "GET",
      `/operator/connections?account=${byOperator.accountId}`,
    );
    expect(listed.body.data).toEqual([]);
    const again = await operator.json<ErrorAnswer>(
      "DELETE",
      `/operator/connections/${byOperator.connectionId}`,
    );
    expect(again.status).toBe(404);
  });

  test("an operator's Remove of an Enable Banking connection ends the session at the provider, as the owner's does", async () => {
    const owner = await signedInOwner(services, server.baseUrl);
    const start = await startLink(services, owner.accountId, {
      provider: "enable_banking",
      country: "FI",
      bank: "Stub Bank",
    });
    if (start.kind !== "redirect") throw new Error("expected a redirect");
    const authorizationId = new URL(start.url).searchParams.get("id") ?? "";
    const linked = await completeLink(services, {
      provider: "enable_banking",
      state: eb.lastState,
      code: eb.approve(authorizationId),
      proof: { signedIn: { serviceAccountId: owner.accountId, isOperator: false } },
    });
    expect(linked.status).toBe("linked");
    const sessionId = [...eb.sessions.keys()].at(-1) ?? "";
    expect(eb.sessions.get(sessionId)?.deleted).toBeFalsy();

    const removed = await operator.json<Removed>(
      "DELETE",
      `/operator/connections/${start.connectionId}`,
    );
    expect(removed.status).toBe(200);
    expect(removed.body.providerSessionDeleted).toBe(true);
    expect(eb.sessions.get(sessionId)?.deleted).toBe(true);
    expect((await rowsOf(start.connectionId)).connections).toBe(0);
  });

  test("an account owner gets 403 for another account's connections and their removal; nothing is removed", async () => {
    const victim = await ownerWithSyncedSandbox();
    const { client } = await signedInOwner(services, server.baseUrl);
    const list = await client.json<ErrorAnswer>(
      "GET",
      `/operator/connections?account=${victim.accountId}`,
    );
    expect(list.status).toBe(403);
    expect(list.body.error.code).toBe("forbidden");
    const removal = await client.json<ErrorAnswer>(
      "DELETE",
      `/operator/connections/${victim.connectionId}`,
    );
    expect(removal.status).toBe(403);
    expect(removal.body.error.code).toBe("forbidden");
    // Not even an owner's own connection through the operator route.
    const own = await victim.client.json<ErrorAnswer>(
      "DELETE",
      `/operator/connections/${victim.connectionId}`,
    );
    expect(own.status).toBe(403);
    expect((await rowsOf(victim.connectionId)).connections).toBe(1);
  });

  test("the account search finds the account a connection id belongs to, by the whole id or a part", async () => {
    const owner = await ownerWithSyncedSandbox();
    await ownerWithSyncedSandbox();
    for (const term of [owner.connectionId, owner.connectionId.slice(-12).toUpperCase()]) {
      const found = await operator.json<{ data: { id: string }[] }>(
        "GET",
        `/operator/accounts?search=${encodeURIComponent(term)}`,
      );
      expect(found.body.data.map((a) => a.id)).toEqual([owner.accountId]);
    }
  });

  test("an unknown or malformed connection id is 404 not_found", async () => {
    for (const id of [crypto.randomUUID(), "not-an-id"]) {
      const answer = await operator.json<ErrorAnswer>("DELETE", `/operator/connections/${id}`);
      expect(answer.status).toBe(404);
      expect(answer.body.error).toEqual({ code: "not_found", message: `No connection ${id}.` });
    }
  });

  test("a removal from another origin is refused like every portal write; signed out it is 401", async () => {
    const victim = await ownerWithSyncedSandbox();
    const foreign = await operator.request(
      "DELETE",
      `/operator/connections/${victim.connectionId}`,
      undefined,
      { Origin: "https://evil.example" },
    );
    expect(foreign.status).toBe(403);
    const signedOut = await fetch(
      `${server.baseUrl}/portal/api/operator/connections/${victim.connectionId}`,
      { method: "DELETE", headers: { Origin: new URL(server.baseUrl).origin } },
    );
    expect(signedOut.status).toBe(401);
    expect((await rowsOf(victim.connectionId)).connections).toBe(1);
  });
});
