import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { importBankData } from "../../src/banking/import/ingest.ts";
import { ImportRejected } from "../../src/banking/import/validate.ts";
import { balances, bankAccounts, connections, transactions } from "../../src/db/schema.ts";
import invalidFixture from "../fixtures/import/invalid.json" with { type: "json" };
import validFixture from "../fixtures/import/valid.json" with { type: "json" };
import { addVerifiedEndpoint, setup, storedEvents, tableContents } from "./helpers.ts";

const clone = <T>(value: T): T => structuredClone(value);

function rejection(run: () => unknown): ImportRejected {
  try {
    run();
  } catch (error) {
    if (error instanceof ImportRejected) return error;
    throw error;
  }
  throw new Error("the import was not rejected");
}

describe("operator ingest: a valid document", () => {
  test("creates connections, accounts, balances and transactions and raises their events", () => {
    const s = setup();
    addVerifiedEndpoint(s.services, s.accountId);
    const result = importBankData(s.services, s.accountId, clone(validFixture));
    expect(result.newTransactions).toBe(4);
    expect(result.connections.map((c) => [c.externalId, c.created, c.status])).toEqual([
      ["acme-conn-1", true, "linked"],
      ["acme-conn-2", true, "expired"],
    ]);
    const [checking, wallet] = result.connections[0]?.accounts ?? [];
    const at = s.clock.now().toISOString();
    expect(storedEvents(s.services).map((e) => [e.type, e.data])).toEqual([
      [
        "connection.status.changed",
        {
          connection_id: result.connections[0]?.id,
          status: "linked",
          account_ids: [checking?.accountId, wallet?.accountId],
        },
      ],
      [
        "account.transactions.available",
        { account_id: checking?.accountId, fetched_at: at, new_count: 3 },
      ],
      ["account.balance.updated", { account_id: checking?.accountId, fetched_at: at }],
      [
        "account.transactions.available",
        { account_id: wallet?.accountId, fetched_at: at, new_count: 1 },
      ],
      ["account.balance.updated", { account_id: wallet?.accountId, fetched_at: at }],
      [
        "connection.status.changed",
        { connection_id: result.connections[1]?.id, status: "expired", account_ids: [] },
      ],
    ]);
    expect(result.eventsRaised).toBe(6);
    expect(tableContents(s.services).deliveries).toHaveLength(6);
  });

  test("stores amounts normalised to the currency, IBANs without spaces, masks derived from the IBAN", () => {
    const s = setup();
    importBankData(s.services, s.accountId, clone(validFixture));
    const accounts = s.services.db.select().from(bankAccounts).all();
    expect(accounts.map((a) => [a.externalId, a.iban, a.mask, a.currency, a.institution])).toEqual([
      ["acme-acc-checking", "DE89370400440532013000", "3000", "EUR", "Acme Bank"],
      ["acme-acc-jpy", null, "7781", "JPY", "Acme Bank"],
    ]);
    const amounts = Object.fromEntries(
      s.services.db
        .select()
        .from(transactions)
        .all()
        .map((t) => [t.externalId, [t.amount, t.currency, t.status]]),
    );
    expect(amounts).toEqual({
      "acme-tx-1": ["-42.10", "EUR", "booked"],
      "acme-tx-2": ["3100.00", "EUR", "booked"],
      "acme-tx-3": ["-19.99", "EUR", "pending"],
      "acme-tx-jp-1": ["-1200", "JPY", "booked"],
    });
    const stored = s.services.db.select().from(balances).all();
    expect(stored.map((b) => [b.current, b.available, b.currency, b.asOf.toISOString()])).toEqual([
      ["2500.50", "2450.50", "EUR", "2026-01-15T08:00:00.000Z"],
      ["15000", null, "JPY", "2026-01-14T23:00:00.000Z"],
    ]);
  });

  test("importing the same document again changes nothing and raises no event", () => {
    const s = setup();
    addVerifiedEndpoint(s.services, s.accountId);
    importBankData(s.services, s.accountId, clone(validFixture));
    const before = tableContents(s.services);
    s.clock.advance(3_600_000);
    const again = importBankData(s.services, s.accountId, clone(validFixture));
    expect(again).toMatchObject({ newTransactions: 0, eventsRaised: 0 });
    expect(again.connections.every((c) => !c.created && !c.statusChanged)).toBe(true);
    expect(tableContents(s.services)).toEqual(before);
  });

  test("the same amounts written differently are the same amounts", () => {
    const s = setup();
    importBankData(s.services, s.accountId, clone(validFixture));
    const respelled = clone(validFixture);
    const checking = respelled.connections[0]?.accounts[0];
    if (!checking?.balance || !checking.transactions[0]) throw new Error("fixture changed");
    checking.balance.current = "2500.500";
    checking.transactions[0].amount = "-42.10";
    expect(importBankData(s.services, s.accountId, respelled)).toMatchObject({ eventsRaised: 0 });
  });

  test("a later document with new transactions, a new balance and a new status raises exactly those events", () => {
    const s = setup();
    const first = importBankData(s.services, s.accountId, clone(validFixture));
    const before = storedEvents(s.services).length;
    s.clock.advance(3_600_000);
    const next = clone(validFixture);
    const conn = next.connections[0];
    const checking = conn?.accounts[0];
    if (!conn || !checking?.balance) throw new Error("fixture changed");
    checking.balance.current = "2480.40";
    checking.transactions.push(
      {
        id: "acme-tx-4",
        status: "booked",
        amount: "-19.99",
        booking_date: "2026-01-16",
        value_date: "2026-01-15",
        description: "Card payment Streamly",
        merchant_name: "Streamly",
        pending_id: "acme-tx-3",
      } as never,
      {
        id: "acme-tx-5",
        status: "booked",
        amount: "-3.50",
        booking_date: "2026-01-16",
        description: "Coffee",
      } as never,
    );
    conn.status = "suspended";
    const result = importBankData(s.services, s.accountId, next);
    // acme-tx-4 books the pending acme-tx-3: linked, not counted.
    expect(result.newTransactions).toBe(1);
    const checkingId = first.connections[0]?.accounts[0]?.accountId;
    expect(
      storedEvents(s.services)
        .slice(before)
        .map((e) => [e.type, e.data]),
    ).toEqual([
      [
        "connection.status.changed",
        {
          connection_id: first.connections[0]?.id,
          status: "suspended",
          account_ids: first.connections[0]?.accounts.map((a) => a.accountId),
        },
      ],
      [
        "account.transactions.available",
        { account_id: checkingId, fetched_at: s.clock.now().toISOString(), new_count: 1 },
      ],
      [
        "account.balance.updated",
        { account_id: checkingId, fetched_at: s.clock.now().toISOString() },
      ],
    ]);
    const rows = s.services.db.select().from(transactions).all();
    const booked = rows.find((r) => r.externalId === "acme-tx-4");
    expect(rows.find((r) => r.externalId === "acme-tx-3")?.bookedTransactionId).toBe(
      booked?.id as string,
    );
  });

  test("connections are per service account: another account importing the same ids gets its own", () => {
    const s = setup();
    const other = setup();
    importBankData(s.services, s.accountId, clone(validFixture));
    const second = importBankData(s.services, s.accountId, clone(validFixture));
    expect(second.connections.every((c) => !c.created)).toBe(true);
    expect(
      importBankData(other.services, other.accountId, clone(validFixture)).connections[0]?.created,
    ).toBe(true);
  });
});

describe("operator ingest: the documented format", () => {
  test("the example in README.md is a valid document", () => {
    const readme = readFileSync(join(import.meta.dir, "../../README.md"), "utf8");
    const example = readme.match(/### Operator ingest format\n\n```json\n([\s\S]*?)\n```/)?.[1];
    expect(example).toBeDefined();
    const s = setup();
    expect(importBankData(s.services, s.accountId, JSON.parse(example as string))).toMatchObject({
      newTransactions: 1,
    });
  });
});

describe("operator ingest: an invalid document is rejected whole", () => {
  test("every bad record is named with its path, id and reason, and nothing is written", () => {
    const s = setup();
    const error = rejection(() => importBankData(s.services, s.accountId, clone(invalidFixture)));
    expect(error.code).toBe("invalid_request");
    const problems = error.problems.map((p) => `${p.path} [${p.recordId}] ${p.message}`);
    expect(problems).toEqual([
      "connections[0].accounts[0].balance.as_of [acme-acc-checking] must be an ISO 8601 timestamp",
      'connections[0].accounts[0].transactions[1].amount [bad-amount] must be a signed decimal string such as "-12.30"',
      "connections[0].accounts[0].transactions[2].booking_date [bad-date] must be a calendar date written YYYY-MM-DD",
      "connections[0].accounts[0].transactions[3].currency [bad-currency] must be an ISO 4217 currency code such as EUR",
      expect.stringMatching(
        /^connections\[0\]\.accounts\[0\]\.transactions\[3\] \[bad-currency\] .*"amout"/,
      ),
      expect.stringMatching(/^connections\[1\]\.status \[acme-conn-2\] .*"linked"/),
    ]);
    expect(error.message).toContain("nothing was written: 6 problems");
    expect(error.toBody().error.problems).toHaveLength(6);
    const contents = tableContents(s.services);
    expect(contents.connections).toHaveLength(0);
    expect(contents.transactions).toHaveLength(0);
    expect(contents.events).toHaveLength(0);
  });

  test("ids used twice and pending links that cannot be are reported per record", () => {
    const s = setup();
    const doc = clone(validFixture);
    const checking = doc.connections[0]?.accounts[0];
    if (!checking) throw new Error("fixture changed");
    checking.transactions.push(
      { ...checking.transactions[0], description: "again" } as never,
      { ...checking.transactions[2], id: "p2", pending_id: "acme-tx-1" } as never,
      { ...checking.transactions[1], id: "self", pending_id: "self" } as never,
    );
    doc.connections.push(clone(doc.connections[1]) as never);
    const error = rejection(() => importBankData(s.services, s.accountId, doc));
    expect(error.problems.map((p) => [p.path, p.recordId, p.message])).toEqual([
      ["connections[2].id", "acme-conn-2", "id is used again (first at index 1)"],
      [
        "connections[0].accounts[0].transactions[3].id",
        "acme-tx-1",
        "id is used again (first at index 0)",
      ],
      [
        "connections[0].accounts[0].transactions[4].pending_id",
        "p2",
        "only a booked transaction can replace a pending one",
      ],
      [
        "connections[0].accounts[0].transactions[5].pending_id",
        "self",
        "must name another transaction",
      ],
    ]);
    expect(tableContents(s.services).connections).toHaveLength(0);
  });

  test("a document that is not the expected shape says what it expected", () => {
    const s = setup();
    for (const bad of [null, [], { connections: [] }, { connection: [] }]) {
      const error = rejection(() => importBankData(s.services, s.accountId, bad));
      expect(error.problems.length).toBeGreaterThan(0);
    }
  });

  test("an unknown service account is not_found", () => {
    const s = setup();
    expect(() =>
      importBankData(s.services, "6f1c0000-0000-4000-8000-000000000000", clone(validFixture)),
    ).toThrow(expect.objectContaining({ code: "not_found" }));
  });

  test("a failure inside the import transaction leaves nothing of the document", () => {
    const s = setup();
    s.services.database.sqlite.exec(
      "CREATE TEMP TRIGGER fail_second_connection BEFORE INSERT ON connections WHEN (SELECT count(*) FROM connections) >= 1 BEGIN SELECT RAISE(ABORT, 'injected'); END",
    );
    expect(() => importBankData(s.services, s.accountId, clone(validFixture))).toThrow("injected");
    const contents = tableContents(s.services);
    expect(contents.connections).toHaveLength(0);
    expect(contents.transactions).toHaveLength(0);
    expect(contents.events).toHaveLength(0);
    expect(
      s.services.db.select().from(connections).where(eq(connections.provider, "import")).all(),
    ).toHaveLength(0);
  });
});
