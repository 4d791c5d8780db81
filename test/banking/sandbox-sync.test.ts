import { describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { connectSandbox, setSandboxStatus } from "../../src/banking/sandbox/connect.ts";
import { sandboxProfile } from "../../src/banking/sandbox/profile.ts";
import { syncConnection } from "../../src/banking/sync.ts";
import { connectionStatuses } from "../../src/db/schema.ts";
import { tables } from "../support/tables.ts";

const { balances, bankAccounts, connections, transactions } = tables;

import {
  addVerifiedEndpoint,
  insertConnection,
  setup,
  storedEvents,
  tableContents,
} from "./helpers.ts";

/** A seed whose customer holds all three accounts (current, savings, credit card). */
const seedWithThreeAccounts = (() => {
  for (let seed = 0; ; seed++) {
    if (sandboxProfile({ seed, openedAt: 0 }).accounts.length === 3) return seed;
  }
})();

async function connected(seed = seedWithThreeAccounts) {
  const s = await setup();
  const connection = await connectSandbox(s.services, { serviceAccountId: s.accountId, seed });
  const sync = () => syncConnection(s.services, connection.id, { trigger: "cli", force: true });
  return { ...s, connection, sync };
}

describe("connecting the sandbox bank", () => {
  test("goes initiated -> awaiting_auth -> linked, announcing each status; linked names every account", async () => {
    const s = await connected();
    expect(s.connection).toMatchObject({
      status: "linked",
      provider: "sandbox",
      seed: seedWithThreeAccounts,
    });
    expect(s.connection.accounts.map((a) => [a.externalId, a.type, a.currency])).toEqual([
      ["cur", "current", "EUR"],
      ["sav", "savings", "EUR"],
      ["card", "credit_card", "EUR"],
    ]);
    const ids = s.connection.accounts.map((a) => a.id);
    expect((await storedEvents(s.services)).map((e) => e.data)).toEqual([
      { connection_id: s.connection.id, status: "initiated", account_ids: [] },
      { connection_id: s.connection.id, status: "awaiting_auth", account_ids: [] },
      { connection_id: s.connection.id, status: "linked", account_ids: ids },
    ]);
    // Data arrives with the first sync, not with connecting.
    expect((await tableContents(s.services)).transactions).toHaveLength(0);
  });

  test("an unknown service account is not_found; a seed out of range is invalid_request", async () => {
    const s = await setup();
    await expect(
      connectSandbox(s.services, {
        serviceAccountId: "6f1c0000-0000-4000-8000-000000000000",
      }),
    ).rejects.toMatchObject({ code: "not_found" });
    await expect(
      connectSandbox(s.services, { serviceAccountId: s.accountId, seed: -1 }),
    ).rejects.toMatchObject({ code: "invalid_request" });
  });

  test("without a seed each connection gets its own random customer", async () => {
    const s = await setup();
    const a = await connectSandbox(s.services, { serviceAccountId: s.accountId });
    const b = await connectSandbox(s.services, { serviceAccountId: s.accountId });
    expect(a.seed).not.toBe(b.seed);
  });
});

describe("driving a sandbox connection through every status (spec 2 vocabulary)", () => {
  test("each move raises exactly one connection.status.changed with the status and every account id", async () => {
    const s = await connected();
    const ids = s.connection.accounts.map((a) => a.id);
    const before = (await storedEvents(s.services)).length;
    const order = [
      "awaiting_auth",
      "rejected",
      "suspended",
      "expired",
      "error",
      "initiated",
      "linked",
    ] as const;
    expect([...order].sort()).toEqual([...connectionStatuses].sort());
    for (const status of order) {
      const result = await setSandboxStatus(s.services, s.connection.id, status);
      expect(result.changed).toBe(true);
      expect(result.connection.status).toBe(status);
    }
    const raised = (await storedEvents(s.services)).slice(before);
    expect(raised.map((e) => e.type)).toEqual(order.map(() => "connection.status.changed"));
    expect(raised.map((e) => e.data)).toEqual(
      order.map((status) => ({ connection_id: s.connection.id, status, account_ids: ids })),
    );
  });

  test("setting the status it already has raises nothing", async () => {
    const s = await connected();
    const before = (await storedEvents(s.services)).length;
    expect((await setSandboxStatus(s.services, s.connection.id, "linked")).changed).toBe(false);
    await setSandboxStatus(s.services, s.connection.id, "expired");
    expect((await setSandboxStatus(s.services, s.connection.id, "expired")).changed).toBe(false);
    expect((await storedEvents(s.services)).length).toBe(before + 1);
  });

  test("in error every sync fails with the message and stores nothing; linked again recovers", async () => {
    const s = await connected();
    await setSandboxStatus(s.services, s.connection.id, "error", "bank maintenance window");
    expect((await s.services.db.select().from(connections))[0]?.error).toBe(
      "bank maintenance window",
    );
    const failed = await s.sync();
    expect(failed).toMatchObject({ outcome: "failed", status: "error" });
    expect((await tableContents(s.services)).transactions).toHaveLength(0);
    await setSandboxStatus(s.services, s.connection.id, "linked");
    expect((await s.services.db.select().from(connections))[0]?.error).toBeNull();
    expect(await s.sync()).toMatchObject({ outcome: "succeeded" });
    expect((await tableContents(s.services)).transactions.length).toBeGreaterThan(0);
  });

  test("in a status other than linked a sync reads no data", async () => {
    const s = await connected();
    await setSandboxStatus(s.services, s.connection.id, "suspended");
    expect(await s.sync()).toMatchObject({
      outcome: "succeeded",
      status: "suspended",
      newTransactions: 0,
    });
    expect((await tableContents(s.services)).transactions).toHaveLength(0);
  });

  test("only sandbox connections can be driven", async () => {
    const s = await setup();
    const other = await insertConnection(s.services, s.accountId);
    await s.services.db.write((tx) =>
      tx.update(connections).set({ provider: "import" }).where(eq(connections.id, other)),
    );
    await expect(setSandboxStatus(s.services, other, "expired")).rejects.toMatchObject({
      code: "invalid_state",
    });
  });
});

describe("syncing the sandbox bank", () => {
  test("the first sync stores 90 days of history in the schema's shapes", async () => {
    const s = await connected();
    const result = await s.sync();
    expect(result).toMatchObject({ outcome: "succeeded" });
    const rows = await s.services.db.select().from(transactions);
    expect(rows.length).toBeGreaterThan(100);
    for (const row of rows) {
      expect(row.amount).toMatch(/^-?\d+\.\d{2}$/);
      expect(row.currency).toBe("EUR");
      expect(row.bookingDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      if (row.valueDate !== null) expect(row.valueDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(row.description.length).toBeGreaterThan(0);
    }
    expect(rows.some((r) => r.status === "pending")).toBe(true);
    for (const balance of await s.services.db.select().from(balances)) {
      expect(balance.current).toMatch(/^-?\d+\.\d{2}$/);
      expect(balance.fetchedAt).toEqual(s.clock.now());
    }
    const accounts = await s.services.db.select().from(bankAccounts);
    expect(accounts.every((a) => a.mask?.length === 4)).toBe(true);
    expect(accounts.filter((a) => a.iban).length).toBe(2);
  });

  test("a repeated sync at the same moment raises nothing; 15 minutes later brings new transactions and balance moves", async () => {
    const s = await connected();
    await s.sync();
    const afterFirst = (await storedEvents(s.services)).length;
    expect(await s.sync()).toMatchObject({
      outcome: "succeeded",
      newTransactions: 0,
      eventsRaised: 0,
    });
    expect(await storedEvents(s.services)).toHaveLength(afterFirst);
    s.clock.advance(15 * 60_000);
    const next = await s.sync();
    expect(next).toMatchObject({ outcome: "succeeded" });
    if (next.outcome !== "succeeded") throw new Error("unreachable");
    expect(next.newTransactions).toBeGreaterThanOrEqual(2);
    const raised = (await storedEvents(s.services)).slice(afterFirst);
    expect(raised.some((e) => e.type === "account.transactions.available")).toBe(true);
    expect(raised.some((e) => e.type === "account.balance.updated")).toBe(true);
    const counted = raised
      .filter((e) => e.type === "account.transactions.available")
      .reduce((sum, e) => sum + (e.data.new_count as number), 0);
    expect(counted).toBe(next.newTransactions);
  });

  test("pending rows that book are linked to their booked row; the booking counts as new, a pending row booked in the same read does not", async () => {
    const s = await connected();
    await s.sync();
    const pendingBefore = await s.services.db
      .select()
      .from(transactions)
      .where(eq(transactions.status, "pending"));
    expect(pendingBefore.length).toBeGreaterThan(0);
    let counted = 0;
    for (let i = 0; i < 5; i++) {
      s.clock.advance(20 * 3_600_000);
      const result = await s.sync();
      if (result.outcome === "succeeded") counted += result.newTransactions;
    }
    const rows = await s.services.db.select().from(transactions);
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const pending of pendingBefore) {
      const stored = rows.find((r) => r.id === pending.id);
      const booked = byId.get(stored?.bookedTransactionId ?? "");
      expect(booked?.status).toBe("booked");
      expect(booked?.amount).toBe(pending.amount);
    }
    // Every row counts once, bookings included, except a pending row that booked in the read
    // that first saw it (written in the same sync as its booked row, never served).
    const firstCount = (await storedEvents(s.services))
      .filter((e) => e.type === "account.transactions.available")
      .reduce((sum, e) => sum + (e.data.new_count as number), 0);
    const bookedInSameRead = rows.filter((r) => {
      const booked = r.bookedTransactionId ? byId.get(r.bookedTransactionId) : undefined;
      return booked !== undefined && booked.createdAt.getTime() === r.createdAt.getTime();
    }).length;
    for (const row of rows) {
      if (row.pendingTransactionId) {
        expect(byId.get(row.pendingTransactionId)?.bookedTransactionId).toBe(row.id);
      }
    }
    expect(firstCount).toBe(rows.length - bookedInSameRead);
    expect(counted).toBeGreaterThan(0);
  });
});

describe("no financial data in any event (spec 1, 6)", () => {
  test("over many syncs, status moves and bookings, every event carries only ids, timestamps, counts and statuses", async () => {
    const s = await connected();
    await addVerifiedEndpoint(s.services, s.accountId);
    await s.sync();
    // Quarter-hour syncs with two day-long gaps, so pending rows book in between.
    for (let i = 0; i < 20; i++) {
      s.clock.advance(i % 8 === 7 ? 40 * 3_600_000 : 15 * 60_000);
      await s.sync();
    }
    for (const status of ["expired", "error", "linked"] as const) {
      await setSandboxStatus(s.services, s.connection.id, status);
      await s.sync();
    }
    const contents = await tableContents(s.services);
    const bodies = contents.events.map((e) => e.body);
    expect(new Set(contents.events.map((e) => e.type))).toEqual(
      new Set([
        "connection.status.changed",
        "account.transactions.available",
        "account.balance.updated",
      ]),
    );
    expect(bodies.length).toBeGreaterThan(60);

    // Every financial value the sandbox produced for this customer.
    const amounts = new Set<string>();
    const texts = new Set<string>();
    for (const t of contents.transactions) {
      amounts.add(t.amount);
      amounts.add(t.amount.replace(/^-/, ""));
      for (const text of [t.description, t.merchantName, t.counterpartyName])
        if (text) texts.add(text);
    }
    for (const b of contents.balances) {
      for (const value of [b.current, b.available])
        if (value) amounts.add(value).add(value.replace(/^-/, ""));
    }
    const masks = new Set<string>();
    for (const a of contents.accounts) {
      if (a.iban) texts.add(a.iban);
      if (a.mask) masks.add(a.mask);
      texts.add(a.name);
    }
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[47][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
    const allowedData: Record<string, string[]> = {
      "account.transactions.available": ["account_id", "fetched_at", "new_count"],
      "account.balance.updated": ["account_id", "fetched_at"],
      "connection.status.changed": ["account_ids", "connection_id", "status"],
    };
    const leaves = (value: unknown): unknown[] =>
      value !== null && typeof value === "object" ? Object.values(value).flatMap(leaves) : [value];

    for (const body of bodies) {
      const event = JSON.parse(body);
      expect(Object.keys(event).sort()).toEqual([
        "api_version",
        "created_at",
        "data",
        "id",
        "type",
      ]);
      expect(Object.keys(event.data).sort()).toEqual(allowedData[event.type] as string[]);
      for (const leaf of leaves(event)) {
        const ok =
          (typeof leaf === "string" &&
            (uuid.test(leaf) ||
              iso.test(leaf) ||
              leaf === "v1" ||
              leaf === event.type ||
              (connectionStatuses as readonly string[]).includes(leaf))) ||
          (Number.isInteger(leaf) && (leaf as number) > 0);
        expect(ok).toBe(true);
        expect(amounts.has(String(leaf))).toBe(false);
        expect(masks.has(String(leaf))).toBe(false);
      }
      for (const text of texts) expect(body.includes(text)).toBe(false);
    }
  });
});
