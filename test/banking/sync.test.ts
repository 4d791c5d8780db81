import { describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { syncConnection } from "../../src/banking/sync.ts";
import { failingInserts } from "../support/failing-db.ts";
import { tables } from "../support/tables.ts";

const { balances, bankAccounts, connections, deliveries, syncRuns, transactions } = tables;

import { ApiError } from "../../src/core/errors.ts";
import { silentLogger } from "../../src/log/log.ts";
import { openServices } from "../../src/server/services.ts";
import { testMasterKeyHex } from "../support/services.ts";
import {
  account,
  addVerifiedEndpoint,
  balance,
  insertConnection,
  type Setup,
  scriptedProvider,
  setup,
  storedEvents,
  syncRunRows,
  tableContents,
  txn,
} from "./helpers.ts";

async function linkedBank(options: { endpoint?: boolean } = {}) {
  const s = await setup();
  const { bank, provider } = scriptedProvider();
  bank.accounts = [account("acc-1"), account("acc-2", { type: "savings", mask: "9911" })];
  bank.balances.set("acc-1", balance("100.00"));
  bank.balances.set("acc-2", balance("5000.00"));
  bank.transactions.set("acc-1", [
    txn("t1"),
    txn("t2", { amount: "2500.00", description: "Salary" }),
  ]);
  bank.transactions.set("acc-2", [txn("s1", { amount: "50.00" })]);
  const connectionId = await insertConnection(s.services, s.accountId);
  if (options.endpoint) await addVerifiedEndpoint(s.services, s.accountId);
  const sync = (
    extra: { force?: boolean; trigger?: "schedule" | "cli" } = {},
    db = s.services.db,
  ) =>
    syncConnection({ ...s.services, db }, connectionId, {
      trigger: extra.trigger ?? "cli",
      force: extra.force ?? true,
      providers: { sandbox: provider },
    });
  return { ...s, bank, provider, connectionId, sync };
}

async function accountIdOf(s: Setup, connectionId: string, externalId: string): Promise<string> {
  const found = (
    await s.services.db
      .select({ id: bankAccounts.id })
      .from(bankAccounts)
      .where(
        and(eq(bankAccounts.connectionId, connectionId), eq(bankAccounts.externalId, externalId)),
      )
  )[0];
  if (!found) throw new Error(`no account ${externalId}`);
  return found.id;
}

describe("first sync", () => {
  test("stores accounts, balances and transactions and raises one transactions event and one balance event per account", async () => {
    const s = await linkedBank({ endpoint: true });
    const result = await s.sync();
    expect(result).toMatchObject({ outcome: "succeeded", newTransactions: 3, eventsRaised: 4 });
    const contents = await tableContents(s.services);
    expect(contents.accounts).toHaveLength(2);
    expect(contents.transactions).toHaveLength(3);
    expect(contents.balances).toHaveLength(2);
    const acc1 = await accountIdOf(s, s.connectionId, "acc-1");
    const acc2 = await accountIdOf(s, s.connectionId, "acc-2");
    const fetchedAt = s.clock.now().toISOString();
    expect((await storedEvents(s.services)).map((e) => [e.type, e.data])).toEqual([
      ["account.transactions.available", { account_id: acc1, fetched_at: fetchedAt, new_count: 2 }],
      ["account.balance.updated", { account_id: acc1, fetched_at: fetchedAt }],
      ["account.transactions.available", { account_id: acc2, fetched_at: fetchedAt, new_count: 1 }],
      ["account.balance.updated", { account_id: acc2, fetched_at: fetchedAt }],
    ]);
    // One pending delivery per event for the verified endpoint (transactional outbox).
    expect(contents.deliveries).toHaveLength(4);
    const connection = contents.connections[0];
    expect(connection?.lastSyncedAt?.toISOString()).toBe(fetchedAt);
    expect(connection?.syncLeaseRunId).toBeNull();
    expect(await syncRunRows(s.services)).toMatchObject([
      { outcome: "succeeded", trigger: "cli", newTransactions: 3, eventsRaised: 4 },
    ]);
    expect(s.bank.sinceSeen).toEqual([undefined, undefined]);
  });

  test("the balance event's fetched_at is the stored balances.fetched_at rendered with toISOString()", async () => {
    const s = await linkedBank();
    await s.sync();
    const acc1 = await accountIdOf(s, s.connectionId, "acc-1");
    const stored = (
      await s.services.db.select().from(balances).where(eq(balances.accountId, acc1))
    )[0];
    const event = (await storedEvents(s.services)).find(
      (e) => e.type === "account.balance.updated" && e.data.account_id === acc1,
    );
    expect(event?.data).toMatchObject({ fetched_at: stored?.fetchedAt.toISOString() });
  });

  test("outbox.notify() is called after the commit when events were raised", async () => {
    const s = await linkedBank();
    let notified = 0;
    const unsubscribe = s.services.outbox.subscribe(() => {
      notified++;
    });
    await s.sync();
    expect(notified).toBe(1);
    await s.sync();
    expect(notified).toBe(1);
    // Stop listening before the database is dropped (on PostgreSQL the relay holds a LISTEN).
    await unsubscribe();
  });
});

describe("repeated sync", () => {
  test("with no change at the bank raises no event and writes no data", async () => {
    const s = await linkedBank({ endpoint: true });
    await s.sync();
    const before = await tableContents(s.services);
    s.clock.advance(15 * 60_000);
    const result = await s.sync();
    expect(result).toMatchObject({ outcome: "succeeded", newTransactions: 0, eventsRaised: 0 });
    const after = await tableContents(s.services);
    expect(after.events).toEqual(before.events);
    expect(after.deliveries).toEqual(before.deliveries);
    expect(after.transactions).toEqual(before.transactions);
    expect(after.balances).toEqual(before.balances);
    expect(after.accounts).toEqual(before.accounts);
  });

  test("re-reads a trailing window of 7 days before the last successful sync", async () => {
    const s = await linkedBank();
    await s.sync();
    s.clock.advance(60 * 60_000);
    await s.sync();
    expect(s.bank.sinceSeen.slice(2)).toEqual(["2026-01-08", "2026-01-08"]);
  });

  test("new transactions raise one event per account with new_count counting only new ids", async () => {
    const s = await linkedBank();
    await s.sync();
    s.clock.advance(15 * 60_000);
    // t1 and t2 are read again (the trailing window); t3 and t4 are new; t1 changed its text.
    s.bank.transactions.set("acc-1", [
      txn("t1", { description: "Card payment t1 (corrected)" }),
      txn("t2", { amount: "2500.00", description: "Salary" }),
      txn("t3"),
      txn("t4", { bookingDate: "2026-01-15" }),
    ]);
    const result = await s.sync();
    expect(result).toMatchObject({ outcome: "succeeded", newTransactions: 2, eventsRaised: 1 });
    const latest = (await storedEvents(s.services)).slice(4);
    expect(latest.map((e) => [e.type, e.data])).toEqual([
      [
        "account.transactions.available",
        {
          account_id: await accountIdOf(s, s.connectionId, "acc-1"),
          fetched_at: s.clock.now().toISOString(),
          new_count: 2,
        },
      ],
    ]);
    const t1 = (
      await s.services.db.select().from(transactions).where(eq(transactions.externalId, "t1"))
    )[0];
    expect(t1?.description).toBe("Card payment t1 (corrected)");
  });

  test("a balance that differs raises account.balance.updated; an unchanged one does not", async () => {
    const s = await linkedBank();
    await s.sync();
    s.clock.advance(15 * 60_000);
    s.bank.balances.set("acc-1", balance("87.70", { asOf: new Date("2026-01-15T09:10:00Z") }));
    const result = await s.sync();
    expect(result).toMatchObject({ newTransactions: 0, eventsRaised: 1 });
    const [event] = (await storedEvents(s.services)).slice(4);
    const acc1 = await accountIdOf(s, s.connectionId, "acc-1");
    expect(event).toMatchObject({
      type: "account.balance.updated",
      data: { account_id: acc1, fetched_at: s.clock.now().toISOString() },
    });
    const stored = (
      await s.services.db.select().from(balances).where(eq(balances.accountId, acc1))
    )[0];
    expect(stored).toMatchObject({ current: "87.70", fetchedAt: s.clock.now() });
  });

  test("an available balance that moves alone is a balance change too", async () => {
    const s = await linkedBank();
    await s.sync();
    s.bank.balances.set("acc-2", balance("5000.00", { available: "4980.00" }));
    expect(await s.sync()).toMatchObject({ eventsRaised: 1 });
  });
});

describe("pending rows that book", () => {
  test("a booked row replacing a known pending row is news (a new id the receiver never saw): counted in new_count, the two linked both ways", async () => {
    const s = await linkedBank();
    s.bank.transactions.set("acc-1", [
      txn("P-1", { status: "pending", bookingDate: "2026-01-15" }),
    ]);
    s.bank.transactions.set("acc-2", []);
    expect(await s.sync()).toMatchObject({ newTransactions: 1 });
    s.clock.advance(24 * 3_600_000);
    // The bank drops the pending row and lists the booked one, naming the pending id.
    s.bank.transactions.set("acc-1", [
      txn("B-1", { bookingDate: "2026-01-16", valueDate: "2026-01-15", pendingExternalId: "P-1" }),
      txn("B-2"),
    ]);
    // B-1 (the booking) and B-2 are both ids the receiver has never seen.
    expect(await s.sync()).toMatchObject({ newTransactions: 2 });
    const rows = await s.services.db.select().from(transactions);
    const pending = rows.find((r) => r.externalId === "P-1");
    const booked = rows.find((r) => r.externalId === "B-1");
    expect(pending?.bookedTransactionId).toBe(booked?.id as string);
    expect(booked?.pendingTransactionId).toBe(pending?.id as string);
    expect(booked?.bookedTransactionId).toBeNull();
    const counts = (await storedEvents(s.services))
      .filter((e) => e.type === "account.transactions.available")
      .map((e) => (e.data as { new_count: number }).new_count);
    expect(counts).toEqual([1, 2]);
  });

  test("a pending row and its booked row seen in the same read count once (the pending one is never served)", async () => {
    const s = await linkedBank();
    s.bank.transactions.set("acc-1", [
      txn("B-9", { pendingExternalId: "P-9" }),
      txn("P-9", { status: "pending" }),
    ]);
    s.bank.transactions.set("acc-2", []);
    expect(await s.sync()).toMatchObject({ newTransactions: 1 });
  });

  test("a pending row that books under its own id is updated in place, not counted", async () => {
    const s = await linkedBank();
    s.bank.transactions.set("acc-1", [txn("X-1", { status: "pending" })]);
    s.bank.transactions.set("acc-2", []);
    await s.sync();
    s.bank.transactions.set("acc-1", [txn("X-1", { status: "booked", bookingDate: "2026-01-16" })]);
    expect(await s.sync()).toMatchObject({ newTransactions: 0, eventsRaised: 0 });
    const row = (await s.services.db.select().from(transactions))[0];
    expect(row).toMatchObject({ status: "booked", bookingDate: "2026-01-16" });
  });
});

describe("a failing provider", () => {
  test("marks the connection error with the message, raises the status event and keeps last_synced_at", async () => {
    const s = await linkedBank();
    await s.sync();
    const syncedAt = s.clock.now();
    s.clock.advance(15 * 60_000);
    s.bank.failWith = "upstream answered 503";
    const result = await s.sync();
    expect(result).toMatchObject({
      outcome: "failed",
      status: "error",
      error: "upstream answered 503",
    });
    const connection = (await s.services.db.select().from(connections))[0];
    expect(connection).toMatchObject({ status: "error", error: "upstream answered 503" });
    expect(connection?.lastSyncedAt).toEqual(syncedAt);
    expect(connection?.syncLeaseRunId).toBeNull();
    const last = (await storedEvents(s.services)).at(-1);
    expect(last).toMatchObject({
      type: "connection.status.changed",
      data: {
        connection_id: s.connectionId,
        status: "error",
        account_ids: [
          await accountIdOf(s, s.connectionId, "acc-1"),
          await accountIdOf(s, s.connectionId, "acc-2"),
        ],
      },
    });
    expect((await syncRunRows(s.services)).at(-1)).toMatchObject({
      outcome: "failed",
      error: "upstream answered 503",
    });
  });

  test("failing again raises no second status event; recovering moves it back to linked and re-reads from the last good sync", async () => {
    const s = await linkedBank();
    await s.sync();
    s.bank.failWith = "timeout talking to the bank";
    await s.sync();
    const afterFirstFailure = (await storedEvents(s.services)).length;
    s.clock.advance(24 * 3_600_000);
    await s.sync();
    expect(await storedEvents(s.services)).toHaveLength(afterFirstFailure);
    s.bank.failWith = undefined;
    s.clock.advance(24 * 3_600_000);
    const result = await s.sync();
    expect(result).toMatchObject({ outcome: "succeeded", status: "linked" });
    expect((await storedEvents(s.services)).at(-1)).toMatchObject({
      type: "connection.status.changed",
      data: { status: "linked" },
    });
    expect((await s.services.db.select().from(connections))[0]?.error).toBeNull();
    // last_synced_at stayed at the first sync (2026-01-15), so the window starts 7 days before it.
    expect(s.bank.sinceSeen.at(-1)).toBe("2026-01-08");
  });

  test("a provider that reports a non-linked status is stored without reading data", async () => {
    const s = await linkedBank();
    s.bank.status = { status: "expired" };
    const result = await s.sync();
    expect(result).toMatchObject({ outcome: "succeeded", status: "expired", newTransactions: 0 });
    expect((await tableContents(s.services)).transactions).toHaveLength(0);
    expect((await s.services.db.select().from(connections))[0]?.lastSyncedAt).toBeNull();
    expect((await storedEvents(s.services)).map((e) => e.data)).toEqual([
      { connection_id: s.connectionId, status: "expired", account_ids: [] },
    ]);
  });

  test("invalid provider data fails the sync with a message naming the record, storing nothing", async () => {
    const s = await linkedBank();
    s.bank.transactions.set("acc-1", [txn("t1", { amount: "12,30" })]);
    const result = await s.sync();
    expect(result.outcome).toBe("failed");
    expect(result).toMatchObject({ error: expect.stringContaining("transaction of acc-1") });
    expect((await tableContents(s.services)).transactions).toHaveLength(0);
  });
});

describe("transactional outbox", () => {
  test("a failure after the data write inside the sync transaction leaves neither data nor event", async () => {
    const s = await linkedBank({ endpoint: true });
    // Inject the failure at the first event write: by then every account, balance and
    // transaction of the sync has been written in the same transaction.
    const failing = failingInserts(s.services.db, "events");
    const result = await s.sync({}, failing.db);
    expect(result).toMatchObject({
      outcome: "failed",
      error: expect.stringContaining("injected failure"),
    });
    const contents = await tableContents(s.services);
    expect(contents.accounts).toHaveLength(0);
    expect(contents.balances).toHaveLength(0);
    expect(contents.transactions).toHaveLength(0);
    expect(contents.events).toHaveLength(0);
    expect(contents.deliveries).toHaveLength(0);
    // Our own failure: the run is recorded, the connection keeps its status and its sync point.
    expect(contents.connections[0]).toMatchObject({
      status: "linked",
      lastSyncedAt: null,
      syncLeaseRunId: null,
    });
    expect(await syncRunRows(s.services)).toMatchObject([{ outcome: "failed" }]);

    failing.disarm();
    expect(await s.sync({}, failing.db)).toMatchObject({
      outcome: "succeeded",
      newTransactions: 3,
      eventsRaised: 4,
    });
    expect(await s.services.db.select().from(deliveries)).toHaveLength(4);
  });
});

describe("never overlapping itself", () => {
  test("a second sync of a connection while one is in flight is refused as busy", async () => {
    const s = await linkedBank();
    let open: () => void = () => {};
    s.bank.gate = new Promise((resolve) => {
      open = resolve;
    });
    const first = s.sync();
    // The first sync holds the lease once it is reading the bank.
    while (s.bank.readsStarted === 0) await Bun.sleep(1);
    expect(await s.sync()).toEqual({ connectionId: s.connectionId, outcome: "busy" });
    open();
    expect(await first).toMatchObject({ outcome: "succeeded" });
    expect(await s.sync()).toMatchObject({ outcome: "succeeded" });
  });

  test("a sync through a second connection to the database file (another process) is refused while one runs", async () => {
    const s = await linkedBank();
    const other = await openServices(s.services.config, {
      clock: s.clock,
      log: silentLogger,
      env: { SVC_MASTER_KEY: testMasterKeyHex },
    });
    try {
      let open: () => void = () => {};
      s.bank.gate = new Promise((resolve) => {
        open = resolve;
      });
      const first = s.sync();
      while (s.bank.readsStarted === 0) await Bun.sleep(1);
      const second = await syncConnection(other, s.connectionId, {
        trigger: "cli",
        force: true,
        providers: { sandbox: s.provider },
      });
      expect(second).toMatchObject({ outcome: "busy" });
      open();
      expect(await first).toMatchObject({ outcome: "succeeded" });
      expect(
        await syncConnection(other, s.connectionId, {
          trigger: "cli",
          force: true,
          providers: { sandbox: s.provider },
        }),
      ).toMatchObject({ outcome: "succeeded" });
    } finally {
      await other.database.close();
    }
  });

  test("the lease lives in the database, so a sync in another process blocks this one until it lapses", async () => {
    const s = await linkedBank();
    // What another process's sync leaves behind while it runs.
    const otherRun = "0b2f4c1e-0000-4000-8000-000000000001";
    await s.services.db.write((tx) =>
      tx.insert(syncRuns).values({
        id: otherRun,
        connectionId: s.connectionId,
        trigger: "schedule",
        startedAt: s.clock.now(),
        outcome: "running",
      }),
    );
    await s.services.db.write((tx) =>
      tx.update(connections).set({
        syncLeaseRunId: otherRun,
        syncLeaseExpiresAt: new Date(s.clock.now().getTime() + 300_000),
      }),
    );
    expect(await s.sync()).toMatchObject({ outcome: "busy" });
    // The other process died: once its lease lapses the sync runs and records it as interrupted.
    s.clock.advance(300_000);
    expect(await s.sync()).toMatchObject({ outcome: "succeeded" });
    const runs = await syncRunRows(s.services);
    expect(runs.find((r) => r.id === otherRun)).toMatchObject({
      outcome: "failed",
      error: expect.stringContaining("interrupted"),
    });
  });
});

describe("minimum interval and errors", () => {
  test("a scheduled sync within the provider's minimum interval is skipped; a forced one runs", async () => {
    const s = await linkedBank();
    await s.sync({ trigger: "schedule", force: false });
    s.clock.advance(30_000);
    expect(await s.sync({ trigger: "schedule", force: false })).toEqual({
      connectionId: s.connectionId,
      outcome: "too_soon",
      nextAllowedAt: "2026-01-15T09:01:00.000Z",
    });
    expect(await s.sync({ force: true })).toMatchObject({ outcome: "succeeded" });
    s.clock.advance(60_000);
    expect(await s.sync({ trigger: "schedule", force: false })).toMatchObject({
      outcome: "succeeded",
    });
  });

  test("an unknown connection is not_found; an operator-ingest connection has nothing to pull", async () => {
    const s = await linkedBank();
    const missing = syncConnection(s.services, "6f1c0000-0000-4000-8000-000000000000", {
      trigger: "cli",
      providers: { sandbox: s.provider },
    });
    await expect(missing).rejects.toMatchObject({ code: "not_found" });
    await s.services.db.write((tx) => tx.update(connections).set({ provider: "import" }));
    const pushOnly = syncConnection(s.services, s.connectionId, {
      trigger: "cli",
      providers: { sandbox: s.provider },
    });
    await expect(pushOnly).rejects.toBeInstanceOf(ApiError);
    await expect(pushOnly).rejects.toMatchObject({ code: "invalid_state" });
  });
});
