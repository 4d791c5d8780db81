// Telling that a serving process is gone (src/cluster/processes.ts), on this run's engine: the
// leases of a process that is gone are taken over at once; a live process's never are.
// PostgreSQL: "another process" is a second pool whose lock connection closes as a kill -9 would
// close it. SQLite: a real child process whose pid the registration carries, killed with SIGKILL.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import {
  pidStartedAt,
  processLockClass,
  startProcessRegistry,
} from "../../src/cluster/processes.ts";
import { openDatabase, type PostgresDatabase } from "../../src/db/open.ts";
import { silentLogger } from "../../src/log/log.ts";
import { claimDueDeliveries } from "../../src/webhooks/delivery/claims.ts";
import { testPoolOptions } from "../support/engine.ts";
import { type Receiver, startReceiver } from "../support/receiver.ts";
import { waitUntil } from "../support/wait.ts";
import {
  createWebhookSetup,
  raiseBalanceEvent,
  registerVerified,
  testCertificates,
} from "../support/webhooks.ts";

const cleanups: (() => unknown)[] = [];
let receiver: Receiver;
beforeAll(async () => {
  receiver = startReceiver((await testCertificates()).cert);
});
afterAll(() => receiver.stop());
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("processes that are gone (kill -9) give up their leases at once", () => {
  test("a live process's leases stay; once it is gone, another process makes them due now, frees its stream places and removes it", async () => {
    const s = await createWebhookSetup();
    cleanups.push(() => s.close());
    const db = s.services.db;
    await registerVerified(s, receiver, `/p-${crypto.randomUUID()}`);
    await raiseBalanceEvent(s);
    await raiseBalanceEvent(s);

    // The other process: its own store on the same data.
    const otherDatabase = openDatabase(s.services.config, testPoolOptions);
    cleanups.push(() => otherDatabase.close());
    const registryOptions = { clock: s.clock, log: silentLogger, schedule: false };
    const other = await startProcessRegistry({ ...registryOptions, database: otherDatabase });
    let child: ReturnType<typeof Bun.spawn> | undefined;
    if (db.engine === "sqlite") {
      // On SQLite a process is told by its pid: the other registration names a real one.
      const spawned = Bun.spawn(["sleep", "60"]);
      child = spawned;
      cleanups.push(() => spawned.kill("SIGKILL"));
      const { serviceProcesses } = db.t;
      await db.write((tx) =>
        tx
          .update(serviceProcesses)
          .set({ pid: spawned.pid, pidStartedAt: pidStartedAt(spawned.pid) })
          .where(eq(serviceProcesses.id, other.id)),
      );
    }
    const now = s.clock.now();
    const leaseUntil = new Date(now.getTime() + 20_000);
    const claimed = await claimDueDeliveries(otherDatabase.db, {
      now,
      leaseUntil,
      limit: 10,
      endpointRoom: () => 10,
      fullEndpoints: [],
      endpointCap: 8,
      holder: other.id,
    });
    expect(claimed).toHaveLength(2);
    // And an event stream it holds open (a place of the account's cap).
    const { eventStreams } = db.t;
    await db.write((tx) =>
      tx.insert(eventStreams).values({
        id: crypto.randomUUID(),
        serviceAccountId: s.accountId,
        processId: other.id,
        openedAt: now,
      }),
    );

    const self = await startProcessRegistry({ ...registryOptions, database: s.services.database });
    cleanups.push(() => self.stop());
    expect(await self.sweep()).toEqual([]);
    const { deliveries } = db.t;
    const leased = async () =>
      (await db.select().from(deliveries)).filter(
        (d) => d.status === "pending" && d.leaseExpiresAt !== null,
      ).length;
    expect(await leased()).toBe(2);

    // Gone as a kill -9 leaves it: nothing released, nothing unregistered.
    if (child) {
      child.kill("SIGKILL");
      await child.exited;
      await waitUntil(() => !alive(child.pid), "the child to be gone");
    } else {
      // Its connections close at once, its lock connection with them, as at a kill -9 (the
      // store's own close waits for connections in use, the lock connection is never released).
      await (otherDatabase as PostgresDatabase).client.close({ timeout: 0 });
      // The server frees the lock when the closed connection's backend ends: gone, as the SQLite
      // branch waits for the child's pid to be gone.
      const client = (s.services.database as PostgresDatabase).client;
      await waitUntil(async () => {
        const [row] = await client<{ held: number }[]>`
          SELECT count(*)::int AS held FROM pg_locks
          WHERE locktype = 'advisory' AND classid = ${processLockClass}
            AND objid = hashtext(${other.id})::oid`;
        return row?.held === 0;
      }, "the other process's lock to be freed");
    }
    expect(await self.sweep()).toEqual([other.id]);
    expect(await leased()).toBe(0);
    expect(await db.select().from(eventStreams)).toEqual([]);
    const due = (await db.select().from(deliveries)).filter((d) => d.status === "pending");
    expect(due.map((d) => d.nextAttemptAt?.getTime())).toEqual([now.getTime(), now.getTime()]);
    // And they can be claimed again at once, within the endpoint's cap.
    const again = await claimDueDeliveries(db, {
      now,
      leaseUntil,
      limit: 10,
      endpointRoom: () => 10,
      fullEndpoints: [],
      endpointCap: 8,
      holder: self.id,
    });
    expect(again).toHaveLength(2);
    expect(await self.sweep()).toEqual([]);
  });

  test("a registration left by an earlier run with this process's own pid (a restarted container) is gone", async () => {
    const s = await createWebhookSetup();
    cleanups.push(() => s.close());
    if (s.services.db.engine !== "sqlite") return; // PostgreSQL tells by the lock, not the pid
    const registryOptions = { clock: s.clock, log: silentLogger, schedule: false };
    const earlier = await startProcessRegistry({
      ...registryOptions,
      database: s.services.database,
    });
    const self = await startProcessRegistry({ ...registryOptions, database: s.services.database });
    cleanups.push(() => self.stop());
    expect(await self.sweep()).toEqual([earlier.id]);
  });
});
