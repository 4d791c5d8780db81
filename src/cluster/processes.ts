// The serving processes on one database (docs/decisions.md "A process that is gone is told at
// once"), so a process can tell that another is gone and take over what it held at once: its
// delivery leases (which would otherwise hold the endpoint's concurrency cap until they run out)
// and its event streams (counted per account across the cluster).
//
// A process registers a row of service_processes at start and beats every `heartbeatMs`. Whether
// a registered process is alive:
// - PostgreSQL: it holds a session advisory lock on its id for its whole life, on a connection
//   of its own; the server frees the lock the moment that connection closes (a kill -9 closes
//   it), so `pg_try_advisory_xact_lock` succeeding means the holder is gone.
// - SQLite (one machine): its pid no longer exists, or is another process's (the OS start time
//   of the pid differs, or it is this process's own pid: a container restarted).
// Either engine: a heartbeat older than `staleAfterMs` (a machine that vanished without closing
// its connections) also counts as gone.
//
// `sweep()` (at start, before the server is ready, then every `sweepMs`) removes gone processes:
// their pending deliveries' leases are made due now, their streams deleted, their rows removed.
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { and, eq, gt, inArray, ne, sql } from "drizzle-orm";
import type { BackgroundJob } from "../core/background-job.ts";
import type { Clock } from "../core/clock.ts";
import { newId } from "../core/ids.ts";
import type { AnyDatabase } from "../db/open.ts";
import type { PostgresDatabase } from "../db/postgres-store.ts";
import type { Db } from "../db/store.ts";
import type { Logger } from "../log/log.ts";

const processHeartbeatMs = 5_000;
const processStaleAfterMs = 30_000;
const processSweepMs = 1_000;
/** PostgreSQL's clock in epoch milliseconds (heartbeats on PostgreSQL). */
const databaseNowMs = sql`(extract(epoch from clock_timestamp()) * 1000)::bigint`;
/** First key of the two-key advisory locks that mark a live process (the second: its id). */
export const processLockClass = 7_305_066;

export interface ProcessRegistry extends BackgroundJob {
  /** This process's id (service_processes.id, deliveries.lease_holder). */
  readonly id: string;
  /** Removes processes that are gone, with their leases and streams; the ids removed. */
  sweep(): Promise<string[]>;
}

export interface ProcessRegistryOptions {
  database: AnyDatabase;
  clock: Clock;
  log: Logger;
  /** Called after a sweep made another process's deliveries due (wake the dispatcher). */
  onTakeover?: () => void;
  heartbeatMs?: number;
  staleAfterMs?: number;
  sweepMs?: number;
  /** Sweep and beat on timers (default true; tests call `sweep` by hand). */
  schedule?: boolean;
}

/** When the OS started process `pid` (Linux: /proc starttime in clock ticks), if it can tell. */
export function pidStartedAt(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces) start after its closing parenthesis;
    // starttime is field 22, the 20th after it.
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}

function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, owned by another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

interface ProcessRow {
  id: string;
  host: string;
  pid: number;
  pidStartedAt: string | null;
}

/** SQLite: whether a process registered on this machine is gone. */
function localProcessGone(row: ProcessRow, self: { host: string; pid: number }): boolean {
  if (row.host !== self.host) return false; // only its heartbeat can tell
  if (row.pid === self.pid) return true; // our pid: that process is not us, so it ended
  if (!pidExists(row.pid)) return true;
  return row.pidStartedAt !== null && pidStartedAt(row.pid) !== row.pidStartedAt;
}

/** Makes the pending deliveries leased by `ids` due now and removes those processes. */
async function takeOverProcesses(tx: Db, ids: string[], now: Date): Promise<void> {
  const { deliveries, eventStreams, serviceProcesses } = tx.t;
  // The claim token stays: a process wrongly taken for gone can still record its outcome only
  // until the row is claimed again (fencing, webhooks/delivery/claims.ts).
  await tx
    .update(deliveries)
    .set({ nextAttemptAt: now, leaseExpiresAt: null, leaseHolder: null })
    .where(
      and(
        eq(deliveries.status, "pending"),
        gt(deliveries.nextAttemptAt, now),
        // A live lease, not a retry scheduled after an attempt it recorded.
        gt(deliveries.leaseExpiresAt, now),
        inArray(deliveries.leaseHolder, ids),
      ),
    );
  await tx.delete(eventStreams).where(inArray(eventStreams.processId, ids));
  await tx.delete(serviceProcesses).where(inArray(serviceProcesses.id, ids));
}

export async function startProcessRegistry(
  options: ProcessRegistryOptions,
): Promise<ProcessRegistry> {
  const { database, clock, log } = options;
  const { db } = database;
  const { serviceProcesses } = db.t;
  let id = newId();
  const self = { host: hostname(), pid: process.pid };
  const staleAfterMs = options.staleAfterMs ?? processStaleAfterMs;
  // PostgreSQL: heartbeats are stamped and judged by the database's clock, so machines whose
  // clocks differ never take each other for gone. SQLite runs on one machine: its clock.
  const beatAt = () => (db.engine === "postgres" ? databaseNowMs : clock.now());
  const register = () =>
    db.write((tx) =>
      tx
        .insert(serviceProcesses)
        .values({
          id,
          ...self,
          pidStartedAt: pidStartedAt(self.pid),
          startedAt: clock.now(),
          heartbeatAt: beatAt(),
        })
        .onConflictDoUpdate({ target: serviceProcesses.id, set: { heartbeatAt: beatAt() } }),
    );

  // PostgreSQL: the lock that says this process lives, taken before the row exists, so no sweep
  // can see the row without the lock.
  let lockConnection: Awaited<ReturnType<PostgresDatabase["client"]["reserve"]>> | undefined;
  // A released connection goes back to the pool with its session locks: unlocked first.
  const unlockSelf = async () => {
    const connection = lockConnection;
    lockConnection = undefined;
    if (!connection) return;
    await connection`SELECT pg_advisory_unlock_all()`.catch(() => undefined);
    connection.release();
  };
  const lockSelf = async () => {
    if (database.engine !== "postgres") return true;
    await unlockSelf();
    lockConnection = await database.client.reserve();
    // Never waits: a live process holding the same lock (two ids of one 32-bit hash) answers
    // false, and a new id is drawn at start.
    const [row] = await lockConnection<
      { locked: boolean }[]
    >`SELECT pg_try_advisory_lock(${processLockClass}, hashtext(${id})) AS locked`;
    return row?.locked === true;
  };
  for (let attempt = 0; database.engine === "postgres" && !(await lockSelf()); attempt++) {
    if (attempt >= 3) throw new Error("could not take this process's liveness lock");
    id = newId();
  }
  await register();

  const goneIds = async (now: Date): Promise<string[]> => {
    const stale = new Date(now.getTime() - staleAfterMs);
    if (db.engine === "postgres") {
      // Outside a transaction: a lock this statement takes is released when it ends.
      const rows = await db.rows<{ id: string }>(
        sql`SELECT id FROM service_processes WHERE id <> ${id} AND (heartbeat_at < ${databaseNowMs} - ${staleAfterMs} OR pg_try_advisory_xact_lock(${processLockClass}, hashtext(id)))`,
      );
      return rows.map((row) => row.id);
    }
    const rows = await db
      .select({
        id: serviceProcesses.id,
        host: serviceProcesses.host,
        pid: serviceProcesses.pid,
        pidStartedAt: serviceProcesses.pidStartedAt,
        heartbeatAt: serviceProcesses.heartbeatAt,
      })
      .from(serviceProcesses)
      .where(ne(serviceProcesses.id, id));
    return rows
      .filter((row) => row.heartbeatAt.getTime() < stale.getTime() || localProcessGone(row, self))
      .map((row) => row.id);
  };

  const sweep = async (): Promise<string[]> => {
    if (!database.isOpen()) return [];
    const now = clock.now();
    const gone = await goneIds(now);
    if (gone.length === 0) return [];
    await db.write((tx) => takeOverProcesses(tx, gone, now));
    log.info("took over the leases and streams of processes that are gone", { processes: gone });
    options.onTakeover?.();
    return gone;
  };

  const beat = async () => {
    if (!database.isOpen()) return;
    try {
      if (lockConnection) {
        // On the lock's own connection, which this keeps from being closed as idle.
        await lockConnection`UPDATE service_processes SET heartbeat_at = (extract(epoch from clock_timestamp()) * 1000)::bigint WHERE id = ${id}`;
      }
      // Re-inserted if another process took this one for gone (e.g. its lock connection broke).
      await register();
    } catch (error) {
      log.warn("the process heartbeat failed; taking the lock again", { error });
      await lockSelf().catch(() => false);
    }
  };

  const timers: ReturnType<typeof setInterval>[] = [];
  if (options.schedule !== false) {
    let sweeping = false;
    timers.push(
      setInterval(() => {
        if (sweeping) return;
        sweeping = true;
        sweep()
          .catch((error) => log.warn("looking for processes that are gone failed", { error }))
          .finally(() => {
            sweeping = false;
          });
      }, options.sweepMs ?? processSweepMs),
      setInterval(() => void beat(), options.heartbeatMs ?? processHeartbeatMs),
    );
    for (const timer of timers) timer.unref();
  }

  return {
    name: "process-registry",
    id,
    sweep,
    async stop() {
      for (const timer of timers) clearInterval(timer);
      // A graceful stop leaves nothing to take over: leases were released, streams closed.
      try {
        await db.write((tx) => takeOverProcesses(tx, [id], clock.now()));
      } catch (error) {
        log.warn("removing this process's registration failed", { error });
      }
      await unlockSelf();
    },
  };
}
