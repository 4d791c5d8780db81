// The claim's statements on PostgreSQL look rows up through the indexes they were written for,
// whatever the planner's statistics say (claims-postgres.ts): here a table that autovacuum has not
// analyzed yet, holding a burst of pending deliveries, as after a large sync. Every statement a
// claim sends is captured and planned again (EXPLAIN, after the SET statements that came before
// it, in a transaction of its own), and no plan may read the deliveries table whole or through a
// bitmap of every pending row.
import { describe, expect, test } from "bun:test";
import { PgDialect } from "drizzle-orm/pg-core";
import type { PostgresDatabase } from "../../src/db/postgres-store.ts";
import { claimDueDeliveries } from "../../src/webhooks/delivery/claims.ts";
import { recordAccountEvents } from "../../src/webhooks/events/write.ts";
import { claimRequestAt } from "../support/claim-requests.ts";
import { testEngine } from "../support/engine.ts";
import { recordingDb, type Sent } from "../support/recording-db.ts";
import { registerVerified, webhookSuite } from "../support/webhooks.ts";

const suite = webhookSuite();
const accountUuid = "5b0c1f7e-8f2a-4d59-9a51-0d6f3c2b1a90";

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  Plans?: PlanNode[];
}

function* nodesOf(node: PlanNode): Generator<PlanNode> {
  yield node;
  for (const child of node.Plans ?? []) yield* nodesOf(child);
}

describe("claims on PostgreSQL with no statistics of the backlog", () => {
  test.skipIf(testEngine !== "postgres")(
    "no statement of a claim scans the deliveries table whole or through a bitmap of every pending row",
    async () => {
      const s = await suite.setup();
      await registerVerified(s, suite.receiver());
      const database = s.services.database as PostgresDatabase;
      const burst = (count: number) =>
        s.services.db.write((tx) =>
          recordAccountEvents(
            tx,
            s.clock,
            Array.from({ length: count }, () => ({
              serviceAccountId: s.accountId,
              type: "account.transactions.available" as const,
              data: {
                account_id: accountUuid,
                fetched_at: s.clock.now().toISOString(),
                new_count: 1,
              },
            })),
          ),
        );
      // A table never analyzed yet (a new installation's first large sync): the planner knows
      // its size in pages, nothing of its values.
      await burst(3_000);
      const sent: Sent[] = [];
      const now = s.clock.now();
      const claimed = await claimDueDeliveries(
        recordingDb(s.services.db, sent),
        claimRequestAt(now, 8, 8),
      );
      expect(claimed).toHaveLength(8);

      const dialect = new PgDialect();
      const compiled = sent.map((item) =>
        item.kind === "statement"
          ? dialect.sqlToQuery(item.query)
          : { sql: item.kind === "begin" ? "BEGIN" : "COMMIT", params: [] },
      );
      // The candidates' read, the endpoints' locks, the claim: each planned as it was sent.
      const reads = compiled.filter(({ sql }) => /^\s*(SELECT|WITH)/i.test(sql));
      expect(reads.some(({ sql }) => sql.includes("ORDER BY next_attempt_at"))).toBe(true);
      expect(reads.some(({ sql }) => /FOR UPDATE .*SKIP LOCKED/.test(sql))).toBe(true);
      const planned: { read: string; scans: string[] }[] = [];
      const connection = await database.client.reserve();
      try {
        for (const read of reads) {
          await connection.unsafe("BEGIN");
          // The SET statements sent before this read in its own transaction, replayed in order.
          const at = compiled.indexOf(read);
          const begun = compiled.slice(0, at).findLastIndex(({ sql }) => sql === "BEGIN");
          for (const before of compiled.slice(begun + 1, at)) {
            if (/^\s*SET LOCAL/i.test(before.sql)) await connection.unsafe(before.sql);
          }
          const [row] = await connection.unsafe(
            `EXPLAIN (FORMAT JSON) ${read.sql}`,
            read.params as never[],
          );
          await connection.unsafe("ROLLBACK");
          const plan = (row as { "QUERY PLAN": { Plan: PlanNode }[] })["QUERY PLAN"][0]?.Plan;
          const scans = [...nodesOf(plan as PlanNode)]
            .filter((node) => node["Relation Name"] === "deliveries")
            .map((node) => node["Node Type"]);
          planned.push({ read: read.sql.trim().slice(0, 40), scans });
        }
      } finally {
        connection.release();
      }
      const whole = ["Seq Scan", "Bitmap Heap Scan"];
      expect(planned).toEqual(
        planned.map(({ read, scans }) => ({
          read,
          scans: scans.filter((type) => !whole.includes(type)),
        })),
      );
    },
  );
});
