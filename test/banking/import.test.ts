import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { importBankData, importBatchAccounts } from "../../src/banking/import/ingest.ts";
import { ImportRejected, validateImportDocument } from "../../src/banking/import/validate.ts";
import { failingWrite } from "../support/failing-db.ts";
import { tables } from "../support/tables.ts";

const { balances, bankAccounts, transactions } = tables;

import invalidFixture from "../fixtures/import/invalid.json" with { type: "json" };
import validFixture from "../fixtures/import/valid.json" with { type: "json" };
import { addVerifiedEndpoint, setup, storedEvents, tableContents } from "./helpers.ts";

const clone = <T>(value: T): T => structuredClone(value);

async function rejection(run: () => unknown): Promise<ImportRejected> {
  try {
    await run();
  } catch (error) {
    if (error instanceof ImportRejected) return error;
    throw error;
  }
  throw new Error("the import was not rejected");
}

describe("operator ingest: a valid document", () => {
  test("creates connections, accounts, balances and transactions and raises their events", async () => {
    const s = await setup();
    await addVerifiedEndpoint(s.services, s.accountId);
    const result = await importBankData(s.services, s.accountId, clone(validFixture));
    expect(result.newTransactions).toBe(4);
    expect(result.connections.map((c) => [c.externalId, c.created, c.status])).toEqual([
      ["acme-conn-1", true, "linked"],
      ["acme-conn-2", true, "expired"],
    ]);
    const [checking, wallet] = result.connections[0]?.accounts ?? [];
    const at = s.clock.now().toISOString();
    expect((await storedEvents(s.services)).map((e) => [e.type, e.data])).toEqual([
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
    expect((await tableContents(s.services)).deliveries).toHaveLength(6);
  });

  test("stores amounts normalised to the currency, IBANs without spaces, masks derived from the IBAN", async () => {
    const s = await setup();
    await importBankData(s.services, s.accountId, clone(validFixture));
    const accounts = await s.services.db.select().from(bankAccounts);
    expect(accounts.map((a) => [a.externalId, a.iban, a.mask, a.currency, a.institution])).toEqual([
      ["acme-acc-checking", "DE89370400440532013000", "3000", "EUR", "Acme Bank"],
      ["acme-acc-jpy", null, "7781", "JPY", "Acme Bank"],
    ]);
    const amounts = Object.fromEntries(
      (await s.services.db.select().from(transactions)).map((t) => [
        t.externalId,
        [t.amount, t.currency, t.status],
      ]),
    );
    expect(amounts).toEqual({
      "acme-tx-1": ["-42.10", "EUR", "booked"],
      "acme-tx-2": ["3100.00", "EUR", "booked"],
      "acme-tx-3": ["-19.99", "EUR", "pending"],
      "acme-tx-jp-1": ["-1200", "JPY", "booked"],
    });
    const stored = await s.services.db.select().from(balances);
    expect(stored.map((b) => [b.current, b.available, b.currency, b.asOf.toISOString()])).toEqual([
      ["2500.50", "2450.50", "EUR", "2026-01-15T08:00:00.000Z"],
      ["15000", null, "JPY", "2026-01-14T23:00:00.000Z"],
    ]);
  });

  test("importing the same document again changes nothing and raises no event", async () => {
    const s = await setup();
    await addVerifiedEndpoint(s.services, s.accountId);
    await importBankData(s.services, s.accountId, clone(validFixture));
    const before = await tableContents(s.services);
    s.clock.advance(3_600_000);
    const again = await importBankData(s.services, s.accountId, clone(validFixture));
    expect(again).toMatchObject({ newTransactions: 0, eventsRaised: 0 });
    expect(again.connections.every((c) => !c.created && !c.statusChanged)).toBe(true);
    expect(await tableContents(s.services)).toEqual(before);
  });

  test("the same amounts written differently are the same amounts", async () => {
    const s = await setup();
    await importBankData(s.services, s.accountId, clone(validFixture));
    const respelled = clone(validFixture);
    const checking = respelled.connections[0]?.accounts[0];
    if (!checking?.balance || !checking.transactions[0]) throw new Error("fixture changed");
    checking.balance.current = "2500.500";
    checking.transactions[0].amount = "-42.10";
    expect(await importBankData(s.services, s.accountId, respelled)).toMatchObject({
      eventsRaised: 0,
    });
  });

  test("a later document with new transactions, a new balance and a new status raises exactly those events", async () => {
    const s = await setup();
    const first = await importBankData(s.services, s.accountId, clone(validFixture));
    const before = (await storedEvents(s.services)).length;
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
    const result = await importBankData(s.services, s.accountId, next);
    // acme-tx-4 books the pending acme-tx-3: linked, and news (an id the receiver never saw).
    expect(result.newTransactions).toBe(2);
    const checkingId = first.connections[0]?.accounts[0]?.accountId;
    expect((await storedEvents(s.services)).slice(before).map((e) => [e.type, e.data])).toEqual([
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
        { account_id: checkingId, fetched_at: s.clock.now().toISOString(), new_count: 2 },
      ],
      [
        "account.balance.updated",
        { account_id: checkingId, fetched_at: s.clock.now().toISOString() },
      ],
    ]);
    const rows = await s.services.db.select().from(transactions);
    const booked = rows.find((r) => r.externalId === "acme-tx-4");
    expect(rows.find((r) => r.externalId === "acme-tx-3")?.bookedTransactionId).toBe(
      booked?.id as string,
    );
  });

  test("connections are per service account: another account importing the same ids gets its own", async () => {
    const s = await setup();
    const other = await setup();
    await importBankData(s.services, s.accountId, clone(validFixture));
    const second = await importBankData(s.services, s.accountId, clone(validFixture));
    expect(second.connections.every((c) => !c.created)).toBe(true);
    expect(
      (await importBankData(other.services, other.accountId, clone(validFixture))).connections[0]
        ?.created,
    ).toBe(true);
  });
});

describe("operator ingest: the documented format", () => {
  test("the example in README.md is a valid document", async () => {
    const readme = readFileSync(join(import.meta.dir, "../../README.md"), "utf8");
    const example = readme.match(/### Operator ingest format\n\n```json\n([\s\S]*?)\n```/)?.[1];
    expect(example).toBeDefined();
    const s = await setup();
    expect(
      await importBankData(s.services, s.accountId, JSON.parse(example as string)),
    ).toMatchObject({
      newTransactions: 1,
    });
  });
});

describe("operator ingest: an invalid document is rejected whole", () => {
  test("every bad record is named with its path, id and reason, and nothing is written", async () => {
    const s = await setup();
    const error = await rejection(() =>
      importBankData(s.services, s.accountId, clone(invalidFixture)),
    );
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
    const contents = await tableContents(s.services);
    expect(contents.connections).toHaveLength(0);
    expect(contents.transactions).toHaveLength(0);
    expect(contents.events).toHaveLength(0);
  });

  test("ids used twice and pending links that cannot be are reported per record", async () => {
    const s = await setup();
    const doc = clone(validFixture);
    const checking = doc.connections[0]?.accounts[0];
    if (!checking) throw new Error("fixture changed");
    checking.transactions.push(
      { ...checking.transactions[0], description: "again" } as never,
      { ...checking.transactions[2], id: "p2", pending_id: "acme-tx-1" } as never,
      { ...checking.transactions[1], id: "self", pending_id: "self" } as never,
    );
    doc.connections.push(clone(doc.connections[1]) as never);
    const error = await rejection(() => importBankData(s.services, s.accountId, doc));
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
    expect((await tableContents(s.services)).connections).toHaveLength(0);
  });

  test("a document that is not the expected shape says what it expected", async () => {
    const s = await setup();
    for (const bad of [null, [], { connections: [] }, { connection: [] }]) {
      const error = await rejection(() => importBankData(s.services, s.accountId, bad));
      expect(error.problems.length).toBeGreaterThan(0);
    }
  });

  test("an unknown service account is not_found", async () => {
    const s = await setup();
    await expect(
      importBankData(s.services, "6f1c0000-0000-4000-8000-000000000000", clone(validFixture)),
    ).rejects.toThrow(expect.objectContaining({ code: "not_found" }));
  });

  test("a failure in the middle leaves the batches before it whole (data with its events), and running the import again completes it", async () => {
    const clean = await setup();
    await importBankData(clean.services, clean.accountId, clone(validFixture));
    const expected = await tableContents(clean.services);

    const s = await setup();
    // The second batch (the second connection) fails inside its transaction.
    const failing = { ...s.services, db: failingWrite(s.services.db, 2, "injected") };
    await expect(importBankData(failing, s.accountId, clone(validFixture))).rejects.toThrow(
      "injected",
    );
    const partial = await tableContents(s.services);
    expect(partial.connections.map((c) => c.externalId)).toEqual(["acme-conn-1"]);
    expect(partial.transactions).toHaveLength(4);
    // The first connection's events are there, with its data; none of the second's.
    expect(partial.events.length).toBeGreaterThan(0);
    expect(partial.events.every((e) => !e.body.includes("expired"))).toBe(true);

    await importBankData(s.services, s.accountId, clone(validFixture));
    const completed = await tableContents(s.services);
    expect(completed.connections.map((c) => c.externalId).sort()).toEqual(
      expected.connections.map((c) => c.externalId).sort(),
    );
    expect(completed.transactions).toHaveLength(expected.transactions.length);
    const types = (events: typeof expected.events) => events.map((e) => e.type).sort();
    expect(types(completed.events)).toEqual(types(expected.events));
  });

  test("a connection whose accounts span several batches is announced once, when its last batch is in, also when a crash came in between", async () => {
    const s = await setup();
    const accounts = Array.from({ length: importBatchAccounts + 5 }, (_, i) => ({
      id: `many-${i}`,
      name: `Account ${i}`,
      type: "current",
      currency: "EUR",
    }));
    const document = {
      connections: [{ id: "big", institution: "Big Bank", status: "linked", accounts }],
    };
    const failing = { ...s.services, db: failingWrite(s.services.db, 2, "injected") };
    await expect(importBankData(failing, s.accountId, structuredClone(document))).rejects.toThrow(
      "injected",
    );
    const announcements = async () =>
      (await storedEvents(s.services)).filter((e) => e.type === "connection.status.changed");
    expect(await announcements()).toHaveLength(0);
    await importBankData(s.services, s.accountId, structuredClone(document));
    const [announced] = await announcements();
    expect(await announcements()).toHaveLength(1);
    expect((announced?.data as { account_ids: string[] } | undefined)?.account_ids).toHaveLength(
      accounts.length,
    );
    // Again: nothing new, no second announcement.
    await importBankData(s.services, s.accountId, structuredClone(document));
    expect(await announcements()).toHaveLength(1);
  });
});

describe("operator ingest: problems in an operator's words", () => {
  test("a wrong type, a value outside the vocabulary, a missing field and an unknown field are worded plainly, never as validator text", () => {
    const document = {
      connections: [
        {
          id: 5,
          institution: "Acme Bank",
          status: "nope",
          surprise: 1,
          accounts: [
            {
              id: "acc",
              name: "Checking",
              type: "current",
              currency: "EUR",
              transactions: [
                { id: "t1", status: "booked", amount: 12, booking_date: "2026-01-02" },
              ],
            },
          ],
        },
      ],
    };
    let rejected: ImportRejected | undefined;
    try {
      validateImportDocument(document);
    } catch (error) {
      rejected = error as ImportRejected;
    }
    const messages = Object.fromEntries(
      (rejected?.problems ?? []).map((problem) => [problem.path, problem.message]),
    );
    const transaction = "connections[0].accounts[0].transactions[0]";
    expect(messages).toEqual({
      "connections[0].id": "must be a string (in double quotes), not number 5",
      "connections[0].status":
        'must be one of "linked", "awaiting_auth", "rejected", "suspended", "expired", "error", "initiated", not the string "nope"',
      "connections[0]": 'unknown field "surprise": remove it (see the ingest format)',
      [`${transaction}.amount`]: "must be a string (in double quotes), not number 12",
      [`${transaction}.description`]: "is required",
    });
    for (const message of Object.values(messages)) {
      expect(message).not.toMatch(/Invalid input|Invalid option|Unrecognized key|received/);
    }
  });
});
