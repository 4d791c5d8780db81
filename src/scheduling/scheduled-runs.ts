// Scheduled jobs run once per tick across the cluster: every instance's timer fires,
// but only the one whose conditional UPDATE moves the job's `last_run_at` runs the tick. The
// others find it moved less than half an interval ago and skip. Half an interval tolerates clocks
// of different machines disagreeing by up to that much; a job that crashed mid-run simply runs
// again at the next tick (the jobs are idempotent: syncs take a lease per connection, retention
// deletes what is old).
import type { Cron } from "croner";
import { and, eq, lte } from "drizzle-orm";
import type { Db } from "../db/store.ts";

/** Takes the tick of job `name` at `now` unless another instance ran it less than `minGapMs` ago. */
export function claimScheduledRun(
  db: Db,
  name: string,
  now: Date,
  minGapMs: number,
): Promise<boolean> {
  return db.write(async (tx) => {
    const { scheduledRuns } = tx.t;
    await tx
      .insert(scheduledRuns)
      .values({ name, lastRunAt: new Date(0) })
      .onConflictDoNothing({ target: scheduledRuns.name });
    const claimed = await tx
      .update(scheduledRuns)
      .set({ lastRunAt: now })
      .where(
        and(
          eq(scheduledRuns.name, name),
          lte(scheduledRuns.lastRunAt, new Date(now.getTime() - minGapMs)),
        ),
      )
      .returning({ name: scheduledRuns.name });
    return claimed.length > 0;
  });
}

/** Half the time between a schedule's next two runs (at least 1 s): the gap claims insist on. */
export function halfInterval(job: Cron): number {
  const [first, second] = job.nextRuns(2);
  if (!first || !second) return 1_000;
  return Math.max(1_000, Math.floor((second.getTime() - first.getTime()) / 2));
}
