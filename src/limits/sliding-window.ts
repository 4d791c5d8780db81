// Sliding-window limits (spec 8: "10 test or verification sends per minute", "10 registrations
// per hour"): an action is allowed when fewer than `limit` actions of the same key were
// counted in the last `windowMs`, i.e. at instants t with now - windowMs < t <= now. Each counted
// action is a row of rate_limit_log, so the count is exact across restarts and across instances
// sharing one database; rows that left the window are pruned as the key is used (and by the
// retention job for keys nobody uses again).
//
// Count and insert happen in one `db.write` transaction: SQLite's single writer and PostgreSQL's
// SERIALIZABLE transactions (retried on conflict) make two racing actions see each other. Pass
// a transaction handle to make the action part of a larger write (e.g. the endpoint insert).
import { and, asc, count, eq, gt, lt, lte } from "drizzle-orm";
import type { Clock } from "../core/clock.ts";
import { ApiError } from "../core/errors.ts";
import { newId } from "../core/ids.ts";
import { type Db, first } from "../db/store.ts";

export interface WindowRule {
  /** What is counted, e.g. `endpoint-registrations:<account id>`. */
  key: string;
  limit: number;
  windowMs: number;
}

export interface WindowDecision {
  allowed: boolean;
  /** How many more actions the window allows after this decision. */
  remaining: number;
  /** When refused: the instant the next action is allowed (the oldest counted one leaves). */
  retryAt?: Date;
}

async function decide(db: Db, now: Date, rule: WindowRule): Promise<WindowDecision> {
  const { rateLimitLog } = db.t;
  const since = new Date(now.getTime() - rule.windowMs);
  const inWindow = and(eq(rateLimitLog.key, rule.key), gt(rateLimitLog.at, since));
  const used = (await first(db.select({ n: count() }).from(rateLimitLog).where(inWindow)))?.n ?? 0;
  if (used < rule.limit) return { allowed: true, remaining: rule.limit - used - 1 };
  // With `used` actions in the window, the next is allowed once `used - limit + 1` have left.
  const freeing = await first(
    db
      .select({ at: rateLimitLog.at })
      .from(rateLimitLog)
      .where(inWindow)
      .orderBy(asc(rateLimitLog.at))
      .offset(used - rule.limit)
      .limit(1),
  );
  const retryAt = new Date((freeing?.at ?? now).getTime() + rule.windowMs);
  return { allowed: false, remaining: 0, retryAt };
}

/** Counts one action if the window has room; a refused action is not counted. */
export function takeFromWindow(db: Db, clock: Clock, rule: WindowRule): Promise<WindowDecision> {
  return db.write(async (tx) => {
    const now = clock.now();
    const { rateLimitLog } = tx.t;
    await tx
      .delete(rateLimitLog)
      .where(
        and(
          eq(rateLimitLog.key, rule.key),
          lte(rateLimitLog.at, new Date(now.getTime() - rule.windowMs)),
        ),
      );
    const decision = await decide(tx, now, rule);
    if (decision.allowed)
      await tx.insert(rateLimitLog).values({ id: newId(), key: rule.key, at: now });
    return decision;
  });
}

/** Whether an action would be allowed now, without counting it. */
export function peekWindow(db: Db, clock: Clock, rule: WindowRule): Promise<WindowDecision> {
  return decide(db, clock.now(), rule);
}

/** The 429 for a refused decision: the message says when the next action is allowed. */
export function windowRefusal(decision: WindowDecision, clock: Clock, what: string): ApiError {
  const retryAt = decision.retryAt ?? clock.now();
  // Rounded up, so a client that waits exactly Retry-After seconds is allowed.
  const retryAfterSeconds = Math.max(
    1,
    Math.ceil((retryAt.getTime() - clock.now().getTime()) / 1000),
  );
  return new ApiError(
    "rate_limited",
    `${what}. The next one is allowed in ${retryAfterSeconds} s (at ${retryAt.toISOString()}).`,
    { "Retry-After": String(retryAfterSeconds) },
  );
}

/** Takes one action from the window or throws its 429. */
export async function enforceWindow(
  db: Db,
  clock: Clock,
  rule: WindowRule,
  what: string,
): Promise<void> {
  const decision = await takeFromWindow(db, clock, rule);
  if (!decision.allowed) throw windowRefusal(decision, clock, what);
}

/** Deletes log rows older than `before` (the retention job; windows are at most an hour). */
export async function pruneWindowLog(db: Db, before: Date): Promise<void> {
  const { rateLimitLog } = db.t;
  await db.write((tx) => tx.delete(rateLimitLog).where(lt(rateLimitLog.at, before)));
}
