// deliveries_recovery_idx holds only the deliveries a recovery queued (a partial index: every
// other delivery's NULL would cost each event's insert a page of the index), and a recovery's
// reads by its id still go through it on both engines.
import { afterAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { recoveryDeliveriesByStatus } from "../../src/webhooks/delivery-log/recovery.ts";
import { testEngine } from "../support/engine.ts";
import { createTestServices } from "../support/services.ts";

// A database of its own: in bun:sqlite 1.4.5 an EXPLAIN read with all() keeps its read
// transaction open, which would hold other suites' reads on an old snapshot.
const services = await createTestServices();
afterAll(() => services.database.close());
const { db } = services;
const recoveryId = "01a252d7-c5fa-7235-b32e-166e69ec5fe6";

describe("the recovery index", () => {
  test("is partial: only rows with a recovery id are in it", async () => {
    const definition =
      testEngine === "postgres"
        ? await db.rows<{ definition: string }>(
            sql`SELECT indexdef AS definition FROM pg_indexes WHERE indexname = 'deliveries_recovery_idx'`,
          )
        : await db.rows<{ definition: string }>(
            sql`SELECT sql AS definition FROM sqlite_master WHERE name = 'deliveries_recovery_idx'`,
          );
    expect(definition[0]?.definition).toMatch(/WHERE \(?recovery_id IS NOT NULL\)?/i);
  });

  test("a recovery's deliveries are counted through it", async () => {
    const { sql: text, params } = recoveryDeliveriesByStatus(db, recoveryId).toSQL();
    const literal = text.replace(/\$\d+|\?/g, () => `'${String(params.shift())}'`);
    const plan =
      testEngine === "postgres"
        ? // Usable, not only chosen: with sequential scans priced out, a partial index the
          // planner could not prove applicable would still leave a Seq Scan.
          await db.write(async (tx) => {
            await tx.rows(sql.raw("SET LOCAL enable_seqscan = off"));
            return tx.rows<Record<string, unknown>>(sql.raw(`EXPLAIN ${literal}`));
          })
        : await db.rows<Record<string, unknown>>(sql.raw(`EXPLAIN QUERY PLAN ${literal}`));
    const planText = plan.map((row) => String(row["QUERY PLAN"] ?? row.detail)).join("\n");
    expect(planText).toContain("deliveries_recovery_idx");
  });
});
