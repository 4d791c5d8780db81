// Successes and failures per hour for one endpoint (the delivery log's 24 h chart).
// Counts attempts (a delivery retried three times is three points of failure, as the receiver
// saw them), bucketed by the hour an attempt started, in UTC hours. One aggregate query that
// both engines run: started_at is integer milliseconds on both, so integer division by an
// hour's milliseconds is the bucket on both.
import { and, eq, gte, lt, sql } from "drizzle-orm";
import type { Clock } from "../../core/clock.ts";
import type { Db } from "../../db/store.ts";

const hourMs = 3_600_000;

export interface HourBucket {
  hourStart: string;
  succeeded: number;
  failed: number;
}

export interface DeliveryStats {
  /** Start of the first bucket (inclusive). */
  from: string;
  /** End of the last bucket (exclusive): the end of the current hour. */
  to: string;
  buckets: HourBucket[];
}

/** The last `hours` whole UTC hours up to and including the current one, oldest first, zeros included. */
export async function deliveryStats(
  deps: { db: Db; clock: Clock },
  endpointId: string,
  hours = 24,
): Promise<DeliveryStats> {
  const { db } = deps;
  const { deliveries, deliveryAttempts } = db.t;
  const toMs = (Math.floor(deps.clock.now().getTime() / hourMs) + 1) * hourMs;
  const fromMs = toMs - hours * hourMs;
  const hour = sql<number>`(${deliveryAttempts.startedAt} / ${sql.raw(String(hourMs))})`;
  const rows = await db
    .select({
      hour,
      succeeded: sql<number>`sum(case when ${deliveryAttempts.outcome} = 'succeeded' then 1 else 0 end)`,
      failed: sql<number>`sum(case when ${deliveryAttempts.outcome} = 'failed' then 1 else 0 end)`,
    })
    .from(deliveryAttempts)
    .innerJoin(deliveries, eq(deliveries.id, deliveryAttempts.deliveryId))
    .where(
      and(
        eq(deliveries.endpointId, endpointId),
        gte(deliveryAttempts.startedAt, new Date(fromMs)),
        lt(deliveryAttempts.startedAt, new Date(toMs)),
      ),
    )
    .groupBy(hour);
  // PostgreSQL answers bigint and sums as strings, SQLite as numbers.
  const byHour = new Map(
    rows.map((r) => [Number(r.hour), { succeeded: Number(r.succeeded), failed: Number(r.failed) }]),
  );
  const buckets: HourBucket[] = [];
  for (let start = fromMs; start < toMs; start += hourMs) {
    const counted = byHour.get(start / hourMs);
    buckets.push({
      hourStart: new Date(start).toISOString(),
      succeeded: counted?.succeeded ?? 0,
      failed: counted?.failed ?? 0,
    });
  }
  return { from: new Date(fromMs).toISOString(), to: new Date(toMs).toISOString(), buckets };
}
