// Fixed-window counters kept in the database, so limits survive a restart (spec 8).
import { lt, sql } from "drizzle-orm";
import type { Clock } from "../core/clock.ts";
import type { Db } from "../db/store.ts";

export interface LimitRule {
  /** What is counted, e.g. `endpoint-registrations:<account id>`. */
  key: string;
  limit: number;
  windowMs: number;
}

export interface LimitDecision {
  allowed: boolean;
  /** How many more are allowed in this window after this one. */
  remaining: number;
  /** When the current window ends. */
  resetAt: Date;
}

function windowStart(now: Date, windowMs: number): Date {
  return new Date(Math.floor(now.getTime() / windowMs) * windowMs);
}

/** Counts one use if the window has room; refused uses are not counted. */
export async function consumeLimit(db: Db, clock: Clock, rule: LimitRule): Promise<LimitDecision> {
  const now = clock.now();
  const start = windowStart(now, rule.windowMs);
  const resetAt = new Date(start.getTime() + rule.windowMs);
  // One statement: insert or increment only while under the limit (atomic across processes).
  const { rateLimitCounters } = db.t;
  const [row] = await db.write((tx) =>
    tx
      .insert(rateLimitCounters)
      .values({ key: rule.key, windowStart: start, count: 1 })
      .onConflictDoUpdate({
        target: [rateLimitCounters.key, rateLimitCounters.windowStart],
        set: { count: sql`${rateLimitCounters.count} + 1` },
        setWhere: sql`${rateLimitCounters.count} < ${rule.limit}`,
      })
      .returning({ count: rateLimitCounters.count }),
  );
  if (!row) return { allowed: false, remaining: 0, resetAt };
  return {
    allowed: row.count <= rule.limit,
    remaining: Math.max(0, rule.limit - row.count),
    resetAt,
  };
}

/** Deletes windows that ended before `before` (called by the retention job). */
export async function pruneLimitCounters(db: Db, before: Date): Promise<void> {
  const { rateLimitCounters } = db.t;
  await db.write((tx) =>
    tx.delete(rateLimitCounters).where(lt(rateLimitCounters.windowStart, before)),
  );
}
