// Accounts, balance and connections as spec 2 describes them.
import { afterAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { tables } from "../support/tables.ts";

const { balances, connections } = tables;

import { errorOf, startApiHarness } from "../support/api.ts";
import { insertBalance, insertBankAccount, insertConnection } from "../support/bank-fixtures.ts";

const api = await startApiHarness();
afterAll(() => api.stop());

describe("GET /v1/accounts", () => {
  test("lists the account's bank accounts with the documented fields, paged by limit and cursor", async () => {
    const tenant = await api.addTenant("lister@example.com");
    const extra = await insertBankAccount(api.services.db, api.clock, {
      serviceAccountId: tenant.accountId,
      connectionId: tenant.bank.connectionId,
      name: "Card",
      type: "credit_card",
      currency: "GBP",
      iban: null,
      mask: "4242",
    });
    const all = [...tenant.bank.accountIds, extra].sort();
    const first = (await (await api.get("/v1/accounts?limit=2", tenant.key)).json()) as {
      data: { account_id: string }[];
      next_cursor: string;
    };
    expect(first.data.map((a) => a.account_id)).toEqual(all.slice(0, 2));
    const second = (await (
      await api.get(`/v1/accounts?limit=2&cursor=${first.next_cursor}`, tenant.key)
    ).json()) as { data: Record<string, unknown>[]; next_cursor: string | null };
    expect(second.next_cursor).toBeNull();
    expect(second.data.map((a) => a.account_id)).toEqual(all.slice(2));
    expect(await (await api.get(`/v1/accounts/${extra}`, tenant.key)).json()).toEqual({
      account_id: extra,
      connection_id: tenant.bank.connectionId,
      name: "Card",
      type: "credit_card",
      currency: "GBP",
      iban: null,
      mask: "4242",
      institution: "Fixture Bank",
    });
  });

  test("an account with no bank data lists nothing", async () => {
    const tenant = await api.addTenant("empty@example.com");
    const other = await api.addTenant("empty-other@example.com");
    await api.services.db.write((tx) =>
      tx.delete(connections).where(eq(connections.serviceAccountId, tenant.accountId)),
    );
    expect(await (await api.get("/v1/accounts", tenant.key)).json()).toEqual({
      data: [],
      next_cursor: null,
    });
    expect(other.bank.accountIds).toHaveLength(2);
  });

  test("a malformed account id is 400 invalid_request naming account_id", async () => {
    const tenant = await api.addTenant("malformed@example.com");
    const response = await api.get("/v1/accounts/acc_123", tenant.key);
    expect(response.status).toBe(400);
    expect((await errorOf(response)).message).toContain('"account_id"');
  });
});

describe("GET /v1/accounts/{account_id}/balance", () => {
  test("fetched_at is the stored fetched_at rendered with toISOString(), as in account.balance.updated", async () => {
    const tenant = await api.addTenant("balance@example.com");
    const accountId = tenant.bank.accountIds[0] as string;
    const fetchedAt = new Date("2026-01-15T08:59:58.123Z");
    await api.services.db.write((tx) =>
      tx
        .update(balances)
        .set({ fetchedAt, current: "-20.10", available: null })
        .where(eq(balances.accountId, accountId)),
    );
    const body = await (await api.get(`/v1/accounts/${accountId}/balance`, tenant.key)).json();
    expect(body).toEqual({
      account_id: accountId,
      current: "-20.10",
      available: null,
      currency: "EUR",
      as_of: api.clock.now().toISOString(),
      fetched_at: fetchedAt.toISOString(),
    });
  });

  test("an account whose balance was never fetched is 404 not_found saying so", async () => {
    const tenant = await api.addTenant("nobalance@example.com");
    const accountId = await insertBankAccount(api.services.db, api.clock, {
      serviceAccountId: tenant.accountId,
      connectionId: tenant.bank.connectionId,
    });
    const response = await api.get(`/v1/accounts/${accountId}/balance`, tenant.key);
    expect(response.status).toBe(404);
    expect((await errorOf(response)).message).toContain("No balance has been fetched");
    await insertBalance(api.services.db, {
      accountId,
      current: "1.00",
      asOf: api.clock.now(),
      fetchedAt: api.clock.now(),
    });
    expect((await api.get(`/v1/accounts/${accountId}/balance`, tenant.key)).status).toBe(200);
  });
});

describe("GET /v1/connections", () => {
  test("each connection has its status in the spec's vocabulary, every account it carries, and its times", async () => {
    const tenant = await api.addTenant("connections@example.com");
    const failing = await insertConnection(api.services.db, api.clock, {
      serviceAccountId: tenant.accountId,
      status: "error",
      error: "The bank refused the credentials.",
      lastSyncedAt: null,
    });
    const list = (await (await api.get("/v1/connections", tenant.key)).json()) as {
      data: Record<string, unknown>[];
    };
    expect(list.data).toHaveLength(2);
    const linked = list.data.find((c) => c.connection_id === tenant.bank.connectionId);
    expect(linked).toEqual({
      connection_id: tenant.bank.connectionId,
      status: "linked",
      account_ids: [...tenant.bank.accountIds].sort(),
      institution: "Fixture Bank",
      created_at: "2026-01-15T09:00:00.000Z",
      last_synced_at: "2026-01-15T09:00:00.000Z",
      error: null,
      notice: null,
      consent_expires_at: null,
    });
    const consentEndsAt = new Date("2026-04-15T09:00:00.000Z");
    await api.services.db.write((tx) =>
      tx
        .update(tx.t.connections)
        .set({ consentExpiresAt: consentEndsAt })
        .where(eq(tx.t.connections.id, failing)),
    );
    const one = await (await api.get(`/v1/connections/${failing}`, tenant.key)).json();
    expect(one).toMatchObject({
      status: "error",
      account_ids: [],
      last_synced_at: null,
      error: "The bank refused the credentials.",
      consent_expires_at: consentEndsAt.toISOString(),
    });
  });

  test("notice: the bank's message and what the last sync skipped, served beside a linked status", async () => {
    const tenant = await api.addTenant("notice@example.com");
    const text = "Data for Other Bank may be delayed. 1 account without an identifier was skipped";
    await api.services.db.write((tx) =>
      tx
        .update(connections)
        .set({ notice: text })
        .where(eq(connections.id, tenant.bank.connectionId)),
    );
    const one = (await (
      await api.get(`/v1/connections/${tenant.bank.connectionId}`, tenant.key)
    ).json()) as { status: string; notice: string | null };
    expect(one).toMatchObject({ status: "linked", notice: text });
  });

  test("a status change is visible on the next read", async () => {
    const tenant = await api.addTenant("status@example.com");
    await api.services.db.write((tx) =>
      tx
        .update(connections)
        .set({ status: "expired" })
        .where(eq(connections.id, tenant.bank.connectionId)),
    );
    const one = (await (
      await api.get(`/v1/connections/${tenant.bank.connectionId}`, tenant.key)
    ).json()) as { status: string };
    expect(one.status).toBe("expired");
  });
});
