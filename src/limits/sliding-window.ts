// Sliding-window limits over rows the database already keeps (issue 18): the uses are the rows
// themselves (e.g. manual deliveries), so "N per window" means N in the last `windowMs` before
// now, not per clock-hour bucket. Call it inside the write transaction that adds the new row, so
// two requests racing cannot both take the last place (SERIALIZABLE / SQLite's single writer).
import type { Clock } from "../clock.ts";
import { ApiError } from "../http/errors.ts";

export interface SlidingWindowRule {
  limit: number;
  windowMs: number;
}

export interface SlidingWindowDecision {
  allowed: boolean;
  /** When the next use is allowed (now when allowed). */
  nextAllowedAt: Date;
}

/**
 * Decides from the times of the most recent uses (newest first; at most `limit` are needed) —
 * the caller reads them with `ORDER BY time DESC LIMIT rule.limit` over the window.
 */
export function decideSlidingWindow(
  now: Date,
  rule: SlidingWindowRule,
  recentNewestFirst: readonly Date[],
): SlidingWindowDecision {
  const windowStart = now.getTime() - rule.windowMs;
  const inWindow = recentNewestFirst.filter((t) => t.getTime() > windowStart);
  if (inWindow.length < rule.limit) return { allowed: true, nextAllowedAt: now };
  // The oldest of the last `limit` uses leaves the window windowMs after it happened.
  const oldestCounted = inWindow[rule.limit - 1] as Date;
  return { allowed: false, nextAllowedAt: new Date(oldestCounted.getTime() + rule.windowMs) };
}

/** Throws 429 `rate_limited` with a message naming when the next use is allowed, and Retry-After. */
export function enforceSlidingWindow(
  clock: Clock,
  rule: SlidingWindowRule,
  recentNewestFirst: readonly Date[],
  what: string,
): void {
  const now = clock.now();
  const decision = decideSlidingWindow(now, rule, recentNewestFirst);
  if (decision.allowed) return;
  const retryAfterSeconds = Math.max(
    1,
    Math.ceil((decision.nextAllowedAt.getTime() - now.getTime()) / 1000),
  );
  throw new ApiError(
    "rate_limited",
    `${what}. The next one is allowed in ${retryAfterSeconds} s (at ${decision.nextAllowedAt.toISOString()}).`,
    { "Retry-After": String(retryAfterSeconds) },
  );
}
