// Wake-ups across processes and instances: an event written by one instance (or the
// CLI) starts its first attempt at once on another, without waiting for the one-second tick:
// LISTEN/NOTIFY on PostgreSQL, SQLite's data version polled every 2-25 ms on SQLite.
import { afterAll, describe, expect, test } from "bun:test";
import { silentLogger } from "../../src/log/log.ts";
import { openServices } from "../../src/server/services.ts";
import { createDispatcher } from "../../src/webhooks/delivery/dispatcher.ts";
import { senderFromConfig } from "../../src/webhooks/delivery/sender.ts";
import {
  createSqliteOutboxRelay,
  sqliteRelayPolls,
} from "../../src/webhooks/events/outbox-relay.ts";
import { createOutboxSignal, type OutboxRelay } from "../../src/webhooks/events/outbox-signal.ts";
import { recordAccountEvent } from "../../src/webhooks/events/write.ts";
import { testEngine } from "../support/engine.ts";
import { startReceiver } from "../support/receiver.ts";
import { testMasterKeyHex } from "../support/services.ts";
import { createWebhookSetup, registerVerified, testCertificates } from "../support/webhooks.ts";

const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const fn of cleanups.reverse()) await fn();
});

describe("the outbox signal", () => {
  test("wakes this process's listeners, publishes to the relay, and listens only while someone subscribes", async () => {
    const published: string[] = [];
    let remote: (() => void) | undefined;
    let stopped = 0;
    const relay: OutboxRelay = {
      publish: () => published.push("notice"),
      async listen(onNotice) {
        remote = onNotice;
        return async () => {
          stopped++;
        };
      },
    };
    const signal = createOutboxSignal(relay);
    signal.notify();
    expect(published).toHaveLength(1);
    expect(remote).toBeUndefined();
    let woken = 0;
    const unsubscribe = signal.subscribe(() => woken++);
    signal.notify();
    expect(woken).toBe(1);
    await Bun.sleep(0);
    remote?.();
    expect(woken).toBe(2);
    await unsubscribe();
    await Bun.sleep(0);
    expect(stopped).toBe(1);
  });

  test("SQLite: the relay looks every 25 ms while quiet, every 2 ms for a second after another process committed, wakes once per move, and stops looking when stopped", async () => {
    let version = 7;
    let nowMs = 0;
    const delays: number[] = [];
    let next: (() => void) | undefined;
    const relay = createSqliteOutboxRelay(
      { otherProcessesCounter: () => version },
      {
        nowMs: () => nowMs,
        schedule: (run, delayMs) => {
          delays.push(delayMs);
          next = run;
          return () => {
            next = undefined;
          };
        },
      },
    );
    let notices = 0;
    const stop = await relay.listen(() => notices++);
    const look = (afterMs: number) => {
      nowMs += afterMs;
      next?.();
    };
    look(25);
    look(25);
    expect(notices).toBe(0);
    version = 8; // another process committed
    look(25);
    expect(notices).toBe(1);
    look(2);
    look(2);
    expect(notices).toBe(1);
    version = 9;
    look(2);
    expect(notices).toBe(2);
    look(sqliteRelayPolls.busyForMs); // quiet for a second
    look(25);
    expect(delays).toEqual([25, 25, 25, 2, 2, 2, 2, 25, 25]);
    await stop();
    expect(next).toBeUndefined();
  });

  test(`${testEngine}: an event written by another process or instance is sent at once by this one's dispatcher (no tick)`, async () => {
    const s = await createWebhookSetup();
    cleanups.push(() => s.close());
    const receiver = startReceiver((await testCertificates()).cert);
    cleanups.push(() => receiver.stop());
    await registerVerified(s, receiver);
    // This instance: a dispatcher woken only by the outbox signal (the one-second tick off).
    const dispatcher = createDispatcher({
      db: s.services.db,
      clock: s.clock,
      log: silentLogger,
      masterKey: s.services.masterKey,
      sender: senderFromConfig(s.services.config, s.clock, { resolve: s.ctx.resolve }),
      outbox: s.services.outbox,
      concurrency: 4,
      endpointConcurrency: 4,
      schedule: false,
    });
    dispatcher.start();
    cleanups.push(() => dispatcher.stop());
    await dispatcher.runDue();
    const before = receiver.requests.length;
    // Another instance on the same database writes an event and notifies.
    const other = await openServices(s.services.config, {
      clock: s.clock,
      log: silentLogger,
      env: { SVC_MASTER_KEY: testMasterKeyHex },
    });
    const recorded = await other.db.write((tx) =>
      recordAccountEvent(tx, s.clock, {
        serviceAccountId: s.accountId,
        type: "account.transactions.available",
        data: {
          account_id: "5b0c1f7e-8f2a-4d59-9a51-0d6f3c2b1a90",
          fetched_at: s.clock.now().toISOString(),
          new_count: 1,
        },
      }),
    );
    // Notified again until heard: the LISTEN may not be acknowledged yet when the first goes.
    for (let tries = 0; receiver.requests.length === before && tries < 50; tries++) {
      other.outbox.notify();
      await Bun.sleep(100);
    }
    await receiver.waitFor(before + 1, 1_000);
    expect(receiver.requests.at(-1)?.headers["svc-webhook-id"]).toBe(recorded.eventId);
    await other.database.close();
  });
});
