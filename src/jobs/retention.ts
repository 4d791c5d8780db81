// Retention: events and their delivery history older than `retentionDays` are
// deleted by a daily job; bank data is kept. Deliveries and attempts go with their event
// (ON DELETE CASCADE). Expired portal sessions and rate-limit windows go too; real-bank link
// attempts that never linked go a day after they began (banking/link-limits.ts). An event that
// still has a delivery waiting for a retry is kept until it is done, so a short retention never
// cuts a retry schedule (spec 6) short.
import { and, eq, inArray, isNotNull, lt, notExists } from "drizzle-orm";
import { pruneSessions } from "../accounts/sessions.ts";
import { pruneAbandonedLinks } from "../banking/link-limits.ts";
import type { Config } from "../config/config.ts";
import type { BackgroundJob } from "../core/background-job.ts";
import type { Clock } from "../core/clock.ts";
import { dayMs } from "../core/dates.ts";
import type { Db } from "../db/store.ts";
import { pruneLimitCounters } from "../limits/counter.ts";
import { pruneWindowLog } from "../limits/sliding-window.ts";
import { type ScheduledJobDeps, startScheduledJob } from "../scheduling/scheduled-job.ts";
import { changesPruneMarginMs, pruneTransactionChanges } from "./change-feed-retention.ts";

/** Every day at 03:30 (server time). */
const retentionSchedule = "30 3 * * *";
/** Rate-limit windows are at most an hour long; a day later they are certainly over. */
const limitWindowRetentionMs = dayMs;
/** Deleted per transaction, so the writer lock is never held for long. */
const batchSize = 1_000;

export interface PruneResult {
  events: number;
  syncRuns: number;
  /** Real-bank link attempts that never linked, removed a day after they began. */
  abandonedLinks: number;
  cutoff: string;
}

export async function pruneHistory(
  db: Db,
  clock: Clock,
  retentionDays: number,
): Promise<PruneResult> {
  const now = clock.now();
  const cutoff = new Date(now.getTime() - retentionDays * dayMs);
  const { deliveries, events, syncRuns } = db.t;
  let eventCount = 0;
  for (;;) {
    const deleted = await db.write(async (tx) => {
      const rows = await tx
        .select({ id: events.id })
        .from(events)
        .where(
          and(
            lt(events.createdAt, cutoff),
            notExists(
              tx
                .select({ id: deliveries.id })
                .from(deliveries)
                .where(and(eq(deliveries.eventId, events.id), eq(deliveries.status, "pending"))),
            ),
          ),
        )
        .limit(batchSize);
      const ids = rows.map((row) => row.id);
      if (ids.length > 0) await tx.delete(events).where(inArray(events.id, ids));
      return ids.length;
    });
    eventCount += deleted;
    if (deleted < batchSize) break;
  }
  const runs = (
    await db.write((tx) =>
      tx
        .delete(syncRuns)
        .where(and(isNotNull(syncRuns.finishedAt), lt(syncRuns.finishedAt, cutoff)))
        .returning({ id: syncRuns.id }),
    )
  ).length;
  await db.write((tx) =>
    tx
      .delete(tx.t.endpointRecoveries)
      .where(
        and(
          isNotNull(tx.t.endpointRecoveries.finishedAt),
          lt(tx.t.endpointRecoveries.finishedAt, cutoff),
        ),
      ),
  );
  await pruneTransactionChanges(db, new Date(cutoff.getTime() - changesPruneMarginMs));
  await pruneLimitCounters(db, new Date(now.getTime() - limitWindowRetentionMs));
  await pruneWindowLog(db, new Date(now.getTime() - limitWindowRetentionMs));
  // Sessions past their 7 days or 12 idle hours can never be used again (docs/security.md "The
  // portal").
  await pruneSessions(db, clock);
  const abandonedLinks = await pruneAbandonedLinks(db, clock);
  return { events: eventCount, syncRuns: runs, abandonedLinks, cutoff: cutoff.toISOString() };
}

/** What the daily retention job needs. */
export interface RetentionJobDeps extends ScheduledJobDeps {
  config: Pick<Config, "retentionDays">;
}

/** The daily retention job as a background job of `svc serve`. */
export function startRetentionJob(
  services: RetentionJobDeps,
  schedule = retentionSchedule,
): BackgroundJob {
  return startScheduledJob(services, {
    name: "retention",
    schedule,
    async run() {
      const result = await pruneHistory(services.db, services.clock, services.config.retentionDays);
      services.log.info("retention: old history deleted", { ...result });
    },
  });
}
