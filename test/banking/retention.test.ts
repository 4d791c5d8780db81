import { describe, expect, test } from "bun:test";
import { importBankData } from "../../src/banking/import/ingest.ts";
import { pruneHistory, startRetentionJob } from "../../src/jobs/retention.ts";
import { tables } from "../support/tables.ts";

const { deliveries, deliveryAttempts, events, rateLimitCounters } = tables;

import { createSession, sessionIdleMs } from "../../src/accounts/sessions.ts";
import { newId } from "../../src/core/ids.ts";
import { consumeLimit } from "../../src/limits/counter.ts";
import validFixture from "../fixtures/import/valid.json" with { type: "json" };
import { addVerifiedEndpoint, setup, tableContents } from "./helpers.ts";

const day = 86_400_000;

describe("retention (events and delivery history older than retentionDays; bank data kept)", () => {
  test("deletes old events with their deliveries and attempts, keeps recent ones and all bank data", async () => {
    const s = await setup();
    await addVerifiedEndpoint(s.services, s.accountId);
    await importBankData(s.services, s.accountId, structuredClone(validFixture));
    const old = await tableContents(s.services);
    // The old events' deliveries are finished (succeeded) and have an attempt on record.
    await s.services.db.write((tx) =>
      tx.update(deliveries).set({ status: "succeeded", completedAt: s.clock.now() }),
    );
    for (const delivery of old.deliveries) {
      await s.services.db.write((tx) =>
        tx.insert(deliveryAttempts).values({
          id: newId(),
          deliveryId: delivery.id,
          attemptNumber: 1,
          startedAt: s.clock.now(),
          durationMs: 12,
          outcome: "succeeded",
          statusCode: 200,
        }),
      );
    }
    s.clock.advance(31 * day);
    const next = structuredClone(validFixture);
    (next.connections[1] as { status: string }).status = "linked";
    await importBankData(s.services, s.accountId, next);

    const result = await pruneHistory(s.services.db, s.clock, 30);
    expect(result.events).toBe(old.events.length);
    const remaining = await s.services.db.select().from(events);
    expect(remaining).toHaveLength(1);
    expect(remaining[0]?.type).toBe("connection.status.changed");
    expect(await s.services.db.select().from(deliveries)).toHaveLength(1);
    expect(await s.services.db.select().from(deliveryAttempts)).toHaveLength(0);
    const now = await tableContents(s.services);
    expect(now.transactions).toEqual(old.transactions);
    expect(now.accounts).toEqual(old.accounts);
    expect(now.balances).toEqual(old.balances);
  });

  test("an old event whose delivery still waits for a retry is kept until the delivery is done", async () => {
    const s = await setup();
    await addVerifiedEndpoint(s.services, s.accountId);
    await importBankData(s.services, s.accountId, structuredClone(validFixture));
    s.clock.advance(2 * day);
    expect((await pruneHistory(s.services.db, s.clock, 1)).events).toBe(0);
    await s.services.db.write((tx) => tx.update(deliveries).set({ status: "dropped" }));
    expect((await pruneHistory(s.services.db, s.clock, 1)).events).toBe(6);
  });

  test("expired rate-limit windows are pruned, current ones kept", async () => {
    const s = await setup();
    await consumeLimit(s.services.db, s.clock, { key: "old", limit: 10, windowMs: 3_600_000 });
    s.clock.advance(2 * day);
    await consumeLimit(s.services.db, s.clock, { key: "current", limit: 10, windowMs: 3_600_000 });
    await pruneHistory(s.services.db, s.clock, 30);
    expect((await s.services.db.select().from(rateLimitCounters)).map((r) => r.key)).toEqual([
      "current",
    ]);
  });

  test("expired and idle portal sessions are pruned by the retention run, live ones kept", async () => {
    const s = await setup();
    const userId = newId();
    await s.services.db.write((tx) =>
      tx.insert(tx.t.users).values({
        id: userId,
        serviceAccountId: s.accountId,
        email: "owner@example.com",
        createdAt: s.clock.now(),
      }),
    );
    await createSession(s.services.db, s.clock, userId); // idle past sessionIdleMs below
    s.clock.advance(sessionIdleMs + 1_000);
    const live = await createSession(s.services.db, s.clock, userId);
    await pruneHistory(s.services.db, s.clock, 30);
    const left = await s.services.db.select().from(tables.sessions);
    expect(left).toHaveLength(1);
    expect(left[0]?.expiresAt).toEqual(live.expiresAt);
  });

  test("the retention job runs on its croner schedule and stops cleanly", async () => {
    const s = await setup();
    const worker = startRetentionJob(s.services, "0 0 1 1 *");
    expect(worker.name).toBe("retention");
    await worker.stop();
  });
});
