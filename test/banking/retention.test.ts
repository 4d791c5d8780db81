import { describe, expect, test } from "bun:test";
import { importBankData } from "../../src/banking/import/ingest.ts";
import { pruneHistory, startRetentionWorker } from "../../src/banking/retention.ts";
import { deliveries, deliveryAttempts, events, rateLimitCounters } from "../../src/db/schema.ts";
import { consumeLimit } from "../../src/limits/counter.ts";
import validFixture from "../fixtures/import/valid.json" with { type: "json" };
import { addVerifiedEndpoint, setup, tableContents } from "./helpers.ts";

const day = 86_400_000;

describe("retention (events and delivery history older than retentionDays; bank data kept)", () => {
  test("deletes old events with their deliveries and attempts, keeps recent ones and all bank data", () => {
    const s = setup();
    addVerifiedEndpoint(s.services, s.accountId);
    importBankData(s.services, s.accountId, structuredClone(validFixture));
    const old = tableContents(s.services);
    // The old events' deliveries are finished (succeeded) and have an attempt on record.
    s.services.db.update(deliveries).set({ status: "succeeded", completedAt: s.clock.now() }).run();
    for (const delivery of old.deliveries) {
      s.services.db
        .insert(deliveryAttempts)
        .values({
          deliveryId: delivery.id,
          attemptNumber: 1,
          startedAt: s.clock.now(),
          durationMs: 12,
          outcome: "succeeded",
          statusCode: 200,
        })
        .run();
    }
    s.clock.advance(31 * day);
    const next = structuredClone(validFixture);
    (next.connections[1] as { status: string }).status = "linked";
    importBankData(s.services, s.accountId, next);

    const result = pruneHistory(s.services.db, s.clock, 30);
    expect(result.events).toBe(old.events.length);
    const remaining = s.services.db.select().from(events).all();
    expect(remaining).toHaveLength(1);
    expect(remaining[0]?.type).toBe("connection.status.changed");
    expect(s.services.db.select().from(deliveries).all()).toHaveLength(1);
    expect(s.services.db.select().from(deliveryAttempts).all()).toHaveLength(0);
    const now = tableContents(s.services);
    expect(now.transactions).toEqual(old.transactions);
    expect(now.accounts).toEqual(old.accounts);
    expect(now.balances).toEqual(old.balances);
  });

  test("an old event whose delivery still waits for a retry is kept until the delivery is done", () => {
    const s = setup();
    addVerifiedEndpoint(s.services, s.accountId);
    importBankData(s.services, s.accountId, structuredClone(validFixture));
    s.clock.advance(2 * day);
    expect(pruneHistory(s.services.db, s.clock, 1).events).toBe(0);
    s.services.db.update(deliveries).set({ status: "dropped" }).run();
    expect(pruneHistory(s.services.db, s.clock, 1).events).toBe(6);
  });

  test("expired rate-limit windows are pruned, current ones kept", () => {
    const s = setup();
    consumeLimit(s.services.db, s.clock, { key: "old", limit: 10, windowMs: 3_600_000 });
    s.clock.advance(2 * day);
    consumeLimit(s.services.db, s.clock, { key: "current", limit: 10, windowMs: 3_600_000 });
    pruneHistory(s.services.db, s.clock, 30);
    expect(
      s.services.db
        .select()
        .from(rateLimitCounters)
        .all()
        .map((r) => r.key),
    ).toEqual(["current"]);
  });

  test("the retention worker runs on its croner schedule and stops cleanly", async () => {
    const s = setup();
    const worker = startRetentionWorker(s.services, "0 0 1 1 *");
    expect(worker.name).toBe("retention");
    await worker.stop();
  });
});
