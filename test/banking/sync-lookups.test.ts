// The sync finds an account's stored transactions by their ids through the unique indexes, so
// its cost does not grow with the account's history: SQLite's planner has no statistics, and
// with `account_id = ? AND external_id IN (…)` (or `id IN (…)`) it read the account's whole
// primary-key range for every chunk of ids (BENCHMARKS.md, "A sync's lookups by id").
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { transactionsByExternalIdQuery } from "../../src/banking/apply.ts";
import { transactionsByIdQuery } from "../../src/banking/write-matched.ts";
import type { Db } from "../../src/db/store.ts";
import {
  generatedTransactions,
  insertTransactions,
  ownerWithAccount,
} from "../support/bank-fixtures.ts";
import { testEngine } from "../support/engine.ts";
import { createFakeClock } from "../support/fake-clock.ts";
import { createTestServices } from "../support/services.ts";

const clock = createFakeClock("2026-06-01T09:00:00.000Z");
const services = await createTestServices({ clock });
afterAll(() => services.database.close());
const { db } = services;

/** The engine's plan of a query, its parameters written in as literals. */
async function planOf(query: { toSQL(): { sql: string; params: unknown[] } }): Promise<string> {
  const { sql: text, params } = query.toSQL();
  let index = 0;
  // An array (PostgreSQL's ids) as its text form, which the query's `::text[]` reads.
  const literal = text.replace(/\$\d+|\?/g, () => {
    const param = params[index++];
    return Array.isArray(param) ? `'{${param.join(",")}}'` : `'${String(param)}'`;
  });
  const explain = testEngine === "postgres" ? "EXPLAIN" : "EXPLAIN QUERY PLAN";
  const rows = await db.rows<Record<string, unknown>>(sql.raw(`${explain} ${literal}`));
  return rows.map((row) => String(row["QUERY PLAN"] ?? row.detail)).join("\n");
}

describe("a sync's lookups of stored transactions", () => {
  let accountId = "";
  let some: string[] = [];
  beforeAll(async () => {
    ({ accountId } = await ownerWithAccount(db, clock, "lookups"));
    // An account with history, and statistics older than it (as after a large first sync).
    await db.write((tx: Db) => tx.rows(sql.raw("ANALYZE")));
    const ids = await insertTransactions(
      db,
      clock,
      accountId,
      generatedTransactions(3_000, { lastDate: "2026-05-31", perDay: 20 }),
    );
    some = [ids[10], ids[1_500], ids[2_990]] as string[];
  });

  test("by stable id: the rows named, read through transactions_external_unique", async () => {
    // The fixture's external ids are the rows' ids.
    const query = transactionsByExternalIdQuery(db, accountId, [...some, "not-stored"]);
    expect((await query).map((row) => row.id).sort()).toEqual([...some].sort());
    expect(await planOf(query)).toContain("transactions_external_unique");
  });

  test("by stable id: another account's rows with the same id are not the account's", async () => {
    const other = await ownerWithAccount(db, clock, "lookups-other");
    expect(await transactionsByExternalIdQuery(db, other.accountId, some)).toEqual([]);
  });

  test("by row id: the rows named, read through transactions_id_unique", async () => {
    const query = transactionsByIdQuery(db, [...some, "not-stored"]);
    expect((await query).map((row) => row.id).sort()).toEqual([...some].sort());
    expect(await planOf(query)).toContain("transactions_id_unique");
  });
});

// A database of its own, apart from the plans above: in bun:sqlite 1.4.5 a statement of EXPLAIN
// (QUERY PLAN) read with all() keeps its read transaction open, so SQLite's read connection stays
// on that snapshot while the statement lives, and a later test's reads there miss new rows (the
// service never runs EXPLAIN).
const oddServices = await createTestServices({ clock });
afterAll(() => oddServices.database.close());

describe("a sync's lookup by stable id, ids as banks send them", () => {
  test("by stable id: ids holding commas, quotes, braces, backslashes or spaces are found as they are", async () => {
    // Bank ids are opaque text; PostgreSQL receives them as one array parameter.
    const oddIds = ["a,b", 'quo"te', "{brace}", "back\\slash", "with space", "NULL", "ünï"];
    const { accountId: oddAccount } = await ownerWithAccount(oddServices.db, clock, "lookups-odd");
    // The fixture stores each row under its id as its stable id.
    await insertTransactions(
      oddServices.db,
      clock,
      oddAccount,
      oddIds.map((id) => ({ id, bookingDate: "2026-05-30" })),
    );
    const found = await transactionsByExternalIdQuery(oddServices.db, oddAccount, [
      ...oddIds,
      "a",
      "b",
    ]);
    expect(found.map((row) => row.externalId).sort()).toEqual([...oddIds].sort());
  });
});
