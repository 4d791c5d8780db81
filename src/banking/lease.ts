// One sync of one connection at a time, across processes (the CLI may sync while the server
// does): a lease on the connection row, taken with one conditional UPDATE. A crashed process
// holds it only until it lapses; the next sync then records the stale run as interrupted.
import { and, eq, isNull, lte, or } from "drizzle-orm";
import { type Db, first } from "../db/store.ts";

/** Longer than any sync may take (the provider read is cut off well before it lapses). */
const syncLeaseMs = 5 * 60_000;

/** Takes the lease for `runId` unless another live run holds it. */
export async function claimSyncLease(
  tx: Db,
  connectionId: string,
  runId: string,
  now: Date,
): Promise<boolean> {
  const { connections, syncRuns } = tx.t;
  const previous = await first(
    tx
      .select({ runId: connections.syncLeaseRunId })
      .from(connections)
      .where(eq(connections.id, connectionId)),
  );
  const claimed = await tx
    .update(connections)
    .set({ syncLeaseRunId: runId, syncLeaseExpiresAt: new Date(now.getTime() + syncLeaseMs) })
    .where(
      and(
        eq(connections.id, connectionId),
        or(isNull(connections.syncLeaseExpiresAt), lte(connections.syncLeaseExpiresAt, now)),
      ),
    )
    .returning({ id: connections.id });
  if (claimed.length === 0) return false;
  if (previous?.runId) {
    await tx
      .update(syncRuns)
      .set({
        outcome: "failed",
        finishedAt: now,
        error: "interrupted: the process running this sync stopped before it finished",
      })
      .where(and(eq(syncRuns.id, previous.runId), eq(syncRuns.outcome, "running")));
  }
  return true;
}

export async function holdsSyncLease(
  tx: Db,
  connectionId: string,
  runId: string,
): Promise<boolean> {
  const { connections } = tx.t;
  const row = await first(
    tx
      .select({ id: connections.id })
      .from(connections)
      .where(and(eq(connections.id, connectionId), eq(connections.syncLeaseRunId, runId))),
  );
  return row !== undefined;
}

export async function releaseSyncLease(tx: Db, connectionId: string, runId: string): Promise<void> {
  const { connections } = tx.t;
  await tx
    .update(connections)
    .set({ syncLeaseRunId: null, syncLeaseExpiresAt: null })
    .where(and(eq(connections.id, connectionId), eq(connections.syncLeaseRunId, runId)));
}
