// Simulate activity (src/banking/sandbox/simulate.ts): each kind makes the sandbox bank do one
// thing now and the ordinary sync raises exactly the account events that thing means (spec 6).
import { describe, expect, test } from "bun:test";
import { connectSandbox } from "../../src/banking/sandbox/connect.ts";
import { sandboxProfile } from "../../src/banking/sandbox/profile.ts";
import { simulateActivity, simulationLimit } from "../../src/banking/sandbox/simulate.ts";
import { syncConnection } from "../../src/banking/sync.ts";
import { setup, storedEvents } from "./helpers.ts";

const seedWithCard = (() => {
  for (let seed = 0; ; seed++) {
    if (sandboxProfile({ seed, openedAt: 0 }).accounts.some((a) => a.code === "card")) return seed;
  }
})();

/** A connected sandbox bank, synced once, so only what is simulated afterwards is new. */
async function synced() {
  const s = await setup();
  const connection = await connectSandbox(s.services, {
    serviceAccountId: s.accountId,
    seed: seedWithCard,
  });
  await syncConnection(s.services, connection.id, { trigger: "cli", force: true });
  const seen = (await storedEvents(s.services)).length;
  const newEvents = async () => (await storedEvents(s.services)).slice(seen);
  const simulate = (
    kind: "transactions" | "booking" | "balance" | "status",
    extra: { accountId?: string; status?: "suspended" } = {},
  ) =>
    simulateActivity(s.services, { connectionId: connection.id, kind, trigger: "cli", ...extra });
  return { ...s, connection, newEvents, simulate };
}

const current = (connection: { accounts: { id: string; externalId: string }[] }) =>
  connection.accounts.find((a) => a.externalId === "cur")?.id;

describe("simulating sandbox activity", () => {
  test("transactions: two new booked transactions raise account.transactions.available (new_count 2) and account.balance.updated", async () => {
    const s = await synced();
    const result = await s.simulate("transactions");
    expect(result.sync).toMatchObject({ outcome: "succeeded", newTransactions: 2 });
    const events = await s.newEvents();
    expect(events.map((e) => [e.type, e.data.account_id])).toEqual([
      ["account.transactions.available", current(s.connection)],
      ["account.balance.updated", current(s.connection)],
    ]);
    expect(events[0]?.data.new_count).toBe(2);
  });

  test("booking: a pending card payment books, a new booked row that links the pending one", async () => {
    const s = await synced();
    const { transactions } = s.services.db.t;
    const waiting = async () =>
      (await s.services.db.select().from(transactions))
        .filter((r) => r.status === "pending" && r.bookedTransactionId === null)
        .map((r) => r.id);
    const before = await waiting();
    expect(before.length).toBeGreaterThan(0);
    const result = await s.simulate("booking");
    expect(result.summary).toContain("booked");
    const events = await s.newEvents();
    expect(events.map((e) => e.type)).toEqual([
      "account.transactions.available",
      "account.balance.updated",
    ]);
    expect(events[0]?.data.new_count).toBe(1);
    // Exactly one pending row got its booked counterpart.
    const after = await waiting();
    expect(before.filter((id) => !after.includes(id))).toHaveLength(1);
  });

  test("booking with nothing pending: a card payment shows as pending first, then books in a second sync", async () => {
    const s = await synced();
    const { transactions } = s.services.db.t;
    const rows = () => s.services.db.select().from(transactions);
    // Book whatever is pending on the account until nothing is left.
    let before = await rows();
    let result = await s.simulate("booking");
    for (let i = 0; i < 30 && !result.summary.includes("showed as pending"); i++) {
      before = await rows();
      result = await s.simulate("booking");
    }
    expect(result.summary).toContain("showed as pending, then booked");
    const added = (await rows()).filter((row) => !before.some((old) => old.id === row.id));
    const pending = added.find((row) => row.status === "pending");
    const booked = added.find((row) => row.status === "booked");
    expect(added).toHaveLength(2);
    expect(pending?.bookedTransactionId).toBe(booked?.id as string);
    expect(booked?.pendingTransactionId).toBe(pending?.id as string);
  });

  test("balance: the balance moves without a transaction, raising account.balance.updated alone", async () => {
    const s = await synced();
    await s.simulate("balance");
    const events = await s.newEvents();
    expect(events.map((e) => [e.type, e.data.account_id])).toEqual([
      ["account.balance.updated", current(s.connection)],
    ]);
  });

  test("status: the connection moves (linked -> awaiting_auth by default, or the status asked for) with connection.status.changed", async () => {
    const s = await synced();
    await s.simulate("status");
    await s.simulate("status");
    await s.simulate("status", { status: "suspended" });
    const events = await s.newEvents();
    expect(events.map((e) => [e.type, e.data.status])).toEqual([
      ["connection.status.changed", "awaiting_auth"],
      ["connection.status.changed", "linked"],
      ["connection.status.changed", "suspended"],
    ]);
    // Bank activity needs a linked connection.
    await expect(s.simulate("transactions")).rejects.toMatchObject({ code: "invalid_state" });
  });

  test("another bank account of the connection can be chosen; an account of another connection is not_found", async () => {
    const s = await synced();
    const card = s.connection.accounts.find((a) => a.externalId === "card")?.id as string;
    await s.simulate("transactions", { accountId: card });
    expect((await s.newEvents())[0]?.data.account_id).toBe(card);
    await expect(
      s.simulate("balance", { accountId: "6f1c0000-0000-4000-8000-000000000000" }),
    ).rejects.toMatchObject({ code: "not_found" });
    await expect(s.simulate("balance", { accountId: "nope" })).rejects.toMatchObject({
      code: "not_found",
    });
  });

  test("simulated transactions stay in the bank: a later sync neither repeats nor loses them", async () => {
    const s = await synced();
    await s.simulate("transactions");
    const count = (await s.newEvents()).length;
    s.clock.advance(60_000);
    await syncConnection(s.services, s.connection.id, { trigger: "cli", force: true });
    const after = await s.newEvents();
    // Only the sandbox's own live activity may add events: never the simulated rows again.
    for (const event of after.slice(count)) {
      if (event.type === "account.transactions.available")
        expect(event.data.new_count).toBeLessThanOrEqual(1);
    }
  });

  test(`at most ${simulationLimit.limit} per hour per account, then 429 with when to try again`, async () => {
    const s = await synced();
    for (let i = 0; i < simulationLimit.limit; i++) await s.simulate("balance");
    await expect(s.simulate("balance")).rejects.toMatchObject({ code: "rate_limited" });
  });
});
