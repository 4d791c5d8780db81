// Portal connections over real HTTP: connect the sandbox bank, statuses, accounts with
// balances, "Sync now" (the provider's minimum interval applies), scoped to the account.
import { afterAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { sandboxMinIntervalMs } from "../../src/banking/sandbox/provider.ts";
import { insertConnection } from "../support/bank-fixtures.ts";
import { createFakeClock } from "../support/fake-clock.ts";
import { portalClient, signedInOwner } from "../support/portal.ts";
import { startTestServer } from "../support/server.ts";
import { createTestServices } from "../support/services.ts";

const clock = createFakeClock();
const services = await createTestServices({ clock });
const server = startTestServer(services);
afterAll(() => server.stop());

interface Connection {
  id: string;
  provider: string;
  status: string;
  pullable: boolean;
  lastSyncedAt: string | null;
  lastSync: { trigger: string; outcome: string; newTransactions: number } | null;
  accounts: {
    id: string;
    name: string;
    mask: string | null;
    balance: { current: string; currency: string; fetchedAt: string } | null;
  }[];
}
type ErrorAnswer = { error: { code: string; message: string } };

describe("portal: connections", () => {
  test("connecting the sandbox bank links it with its accounts; Sync now brings balances", async () => {
    const { client } = await signedInOwner(services, server.baseUrl);
    expect((await client.json<{ data: Connection[] }>("GET", "/connections")).body.data).toEqual(
      [],
    );
    const connected = await client.json<{ id: string; status: string }>(
      "POST",
      "/connections/sandbox",
      { seed: 42 },
    );
    expect(connected.status).toBe(201);
    expect(connected.body.status).toBe("linked");

    const [before] = (await client.json<{ data: Connection[] }>("GET", "/connections")).body.data;
    expect(before).toMatchObject({
      id: connected.body.id,
      provider: "sandbox",
      status: "linked",
      pullable: true,
      lastSyncedAt: null,
      lastSync: null,
    });
    expect(before?.accounts.length).toBeGreaterThanOrEqual(2);
    expect(before?.accounts.every((a) => a.balance === null)).toBe(true);

    const synced = await client.json<{ outcome: string; newTransactions: number }>(
      "POST",
      `/connections/${connected.body.id}/sync`,
    );
    expect(synced.status).toBe(200);
    expect(synced.body.outcome).toBe("succeeded");
    expect(synced.body.newTransactions).toBeGreaterThan(0);

    const [after] = (await client.json<{ data: Connection[] }>("GET", "/connections")).body.data;
    expect(after?.lastSyncedAt).toBe(clock.now().toISOString());
    expect(after?.lastSync).toMatchObject({ trigger: "portal", outcome: "succeeded" });
    for (const account of after?.accounts ?? []) {
      expect(account.balance?.current).toMatch(/^-?\d+\.\d{2}$/);
      expect(account.balance?.fetchedAt).toBe(clock.now().toISOString());
    }
    // The full account number never reaches the portal.
    expect(JSON.stringify(after)).not.toMatch(/iban/i);
  });

  test("each connection carries its notice (the bank's message, what the last sync skipped)", async () => {
    const { client } = await signedInOwner(services, server.baseUrl);
    const connected = await client.json<{ id: string }>("POST", "/connections/sandbox", {
      seed: 7,
    });
    const text = "Data for Other Bank may be delayed";
    await services.db.write((tx) =>
      tx
        .update(tx.t.connections)
        .set({ notice: text })
        .where(eq(tx.t.connections.id, connected.body.id)),
    );
    const [listed] = (
      await client.json<{ data: { id: string; notice: string | null }[] }>("GET", "/connections")
    ).body.data;
    expect(listed).toMatchObject({ id: connected.body.id, notice: text });
  });

  test("Sync now within the provider's minimum interval answers when the next sync is allowed", async () => {
    const { client } = await signedInOwner(services, server.baseUrl);
    const { body } = await client.json<{ id: string }>("POST", "/connections/sandbox", {});
    await client.request("POST", `/connections/${body.id}/sync`);
    const soon = await client.json<{
      connectionId: string;
      outcome: string;
      nextAllowedAt: string;
    }>("POST", `/connections/${body.id}/sync`);
    expect(soon.status).toBe(200);
    expect(soon.body).toEqual({
      connectionId: body.id,
      outcome: "too_soon",
      nextAllowedAt: new Date(clock.now().getTime() + sandboxMinIntervalMs).toISOString(),
    });
    clock.advance(sandboxMinIntervalMs);
    const later = await client.json<{ outcome: string }>("POST", `/connections/${body.id}/sync`);
    expect(later.body.outcome).toBe("succeeded");
  });

  test("a connection fed by operator ingest cannot be pulled: listed as not pullable, Sync now answers 409", async () => {
    const { client, accountId } = await signedInOwner(services, server.baseUrl);
    const id = await insertConnection(services.db, clock, { serviceAccountId: accountId });
    const [listed] = (await client.json<{ data: Connection[] }>("GET", "/connections")).body.data;
    expect(listed).toMatchObject({ id, provider: "import", pullable: false });
    const sync = await client.json<ErrorAnswer>("POST", `/connections/${id}/sync`);
    expect(sync.status).toBe(409);
    expect(sync.body.error.message).toContain("operator ingest");
  });

  test("another account's connection is not found and not listed", async () => {
    const a = await signedInOwner(services, server.baseUrl);
    const b = await signedInOwner(services, server.baseUrl);
    const { body } = await a.client.json<{ id: string }>("POST", "/connections/sandbox", {});
    const attempt = await b.client.json<ErrorAnswer>("POST", `/connections/${body.id}/sync`);
    expect(attempt.status).toBe(404);
    expect(attempt.body.error.code).toBe("not_found");
    expect((await b.client.json<{ data: unknown[] }>("GET", "/connections")).body.data).toEqual([]);
    const [own] = (await a.client.json<{ data: Connection[] }>("GET", "/connections")).body.data;
    expect(own?.lastSync).toBeNull();
    expect((await b.client.request("POST", "/connections/nope/sync")).status).toBe(404);
  });

  test("Simulate activity on the owner's sandbox connection raises the asked-for event; another account's connection is 404, an unknown kind 400", async () => {
    const a = await signedInOwner(services, server.baseUrl);
    const b = await signedInOwner(services, server.baseUrl);
    const { body } = await a.client.json<{ id: string }>("POST", "/connections/sandbox", {});
    const simulated = await a.client.json<{
      kind: string;
      summary: string;
      expectedEvents: string[];
      sync: { outcome: string } | null;
    }>("POST", `/connections/${body.id}/simulate`, { kind: "balance" });
    expect(simulated.status).toBe(200);
    expect(simulated.body).toMatchObject({
      kind: "balance",
      expectedEvents: ["account.balance.updated"],
      sync: { outcome: "succeeded" },
    });
    const status = await a.client.json<{ expectedEvents: string[] }>(
      "POST",
      `/connections/${body.id}/simulate`,
      { kind: "status", status: "expired" },
    );
    expect(status.body.expectedEvents).toEqual(["connection.status.changed"]);
    const [listed] = (await a.client.json<{ data: Connection[] }>("GET", "/connections")).body.data;
    expect(listed?.status).toBe("expired");

    const other = await b.client.json<ErrorAnswer>("POST", `/connections/${body.id}/simulate`, {
      kind: "balance",
    });
    expect(other.status).toBe(404);
    const bad = await a.client.json<ErrorAnswer>("POST", `/connections/${body.id}/simulate`, {
      kind: "robbery",
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toStartWith("kind:");
  });

  test("a bad seed is refused with 400 naming the field", async () => {
    const { client } = await signedInOwner(services, server.baseUrl);
    for (const seed of [-1, 1.5, "7", 2 ** 32]) {
      const answer = await client.json<ErrorAnswer>("POST", "/connections/sandbox", { seed });
      expect(answer.status).toBe(400);
      expect(answer.body.error.message).toStartWith("seed:");
    }
  });

  test("without a session the connection routes answer 401", async () => {
    const anonymous = portalClient(server.baseUrl);
    expect((await anonymous.request("GET", "/connections")).status).toBe(401);
    expect((await anonymous.request("POST", "/connections/sandbox", {})).status).toBe(401);
    expect(
      (await anonymous.request("POST", `/connections/${crypto.randomUUID()}/sync`)).status,
    ).toBe(401);
  });
});
