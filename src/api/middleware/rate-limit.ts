// Read-API rate limit per service account (config apiRateLimitPerMinute; 0 = off): fixed
// one-minute windows; all of an account's keys share it. This limiter counts one process alone
// (tests, tools); `svc serve` uses the shared one (shared-rate-limit.ts), which holds the limit
// across every process on the database.
import type { Clock } from "../../core/clock.ts";

export const rateLimitWindowMs = 60_000;

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets (at least 1). */
  resetSeconds: number;
}

export interface AccountRateLimiter {
  /**
   * Counts one request of the account if its limit allows. `now`: the request's time, when the
   * caller already has it. Synchronous when decided in memory (the common case), else a promise.
   */
  consume(serviceAccountId: string, now?: Date): RateLimitDecision | Promise<RateLimitDecision>;
}

/** Decided in memory, always synchronously. */
export interface LocalRateLimiter extends AccountRateLimiter {
  consume(serviceAccountId: string, now?: Date): RateLimitDecision;
}

export function createLocalRateLimiter(clock: Clock, limitPerMinute: number): LocalRateLimiter {
  let windowStart = 0;
  // Only the current window's counts are kept: memory is bounded by the accounts active in one
  // minute.
  let counts = new Map<string, number>();
  return {
    consume(accountId, at = clock.now()) {
      const now = at.getTime();
      const start = now - (now % rateLimitWindowMs);
      if (start !== windowStart) {
        windowStart = start;
        counts = new Map();
      }
      const used = counts.get(accountId) ?? 0;
      const allowed = used < limitPerMinute;
      if (allowed) counts.set(accountId, used + 1);
      return {
        allowed,
        limit: limitPerMinute,
        remaining: Math.max(0, limitPerMinute - used - (allowed ? 1 : 0)),
        resetSeconds: Math.max(1, Math.ceil((start + rateLimitWindowMs - now) / 1000)),
      };
    },
  };
}

/** IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers), on every limited response. */
export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  return {
    "RateLimit-Limit": String(decision.limit),
    "RateLimit-Remaining": String(decision.remaining),
    "RateLimit-Reset": String(decision.resetSeconds),
    "RateLimit-Policy": `${decision.limit};w=${rateLimitWindowMs / 1000}`,
  };
}

/** The field names as rateLimitHeaders spells them. */
export const rateLimitHeaderNames = [
  "RateLimit-Limit",
  "RateLimit-Remaining",
  "RateLimit-Reset",
  "RateLimit-Policy",
] as const;

/** Sets the two fields that differ from one request to the next on headers that have all four. */
export function setRateLimitState(headers: Headers, decision: RateLimitDecision): void {
  headers.set("RateLimit-Remaining", String(decision.remaining));
  headers.set("RateLimit-Reset", String(decision.resetSeconds));
}
