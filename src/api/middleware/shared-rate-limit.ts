// The read-API rate limit of a service account, held across every process on one database: an
// account's keys share one limit (several keys must not multiply it), and so do the processes
// (--workers) and instances serving it.
//
// Allowance is reserved before it is used: a process takes a small batch of an account's
// allowance from the window's row of rate_limit_counters in one short transaction (the row's
// count is what every process has reserved, never more than the limit), then answers from the
// batch in memory, with no database work, until it runs low, when the next batch is reserved in
// the background. So the cluster never answers more than the limit in a window, however fast
// requests come. What a process reserved and did not use is given back once the account has
// been idle there for `returnIdleAfterMs` (and at stop), so other processes can use it.
//
// Batches start at 1 and double while the account keeps being used, up to 100, and past 100 only
// while a batch lasts the account less than `batchLifeMs` here, so a busy account costs about one
// reservation a second however high its rate (each one a commit, which makes every process
// re-read its keys and empties the page cache of every SQLite reader: at 100 per batch, 10-40 %
// of an uncached read's CPU in process, BENCHMARKS.md); never past `maxBatch` (1/50 of the limit,
// at least 1): the most another process can hold unused is that.
// An account whose allowance is all reserved is refused in memory, and asked about again at
// most every `recheckMs`. While the database cannot be reached, each process decides alone
// (at most the limit per process) and asks again at most every `recheckMs`.
import { and, eq, sql } from "drizzle-orm";
import type { Clock } from "../../core/clock.ts";
import type { Db } from "../../db/store.ts";
import {
  type AccountRateLimiter,
  type RateLimitDecision,
  rateLimitWindowMs,
} from "./rate-limit.ts";

const returnIdleAfterMs = 1_000;
const defaultRecheckMs = 1_000;
/** Batches grow past this only while one lasts the account less than `batchLifeMs`. */
const steadyBatch = 100;
const batchLifeMs = 1_000;

/** The largest batch one process reserves at once for a limit (see above). */
export function maxBatchFor(limitPerMinute: number): number {
  return Math.max(1, Math.floor(limitPerMinute / 50));
}

export interface SharedRateLimiter extends AccountRateLimiter {
  /** Gives back what idle accounts hold unused (run every `returnIdleAfterMs`). */
  returnIdle(): Promise<void>;
  /** Stops the timer and gives back everything held unused. */
  close(): Promise<void>;
}

interface Allowance {
  windowStart: number;
  /** Reserved here and not used yet. */
  held: number;
  /** What every process had reserved in this window, as of the last reservation. */
  reservedByAll: number;
  batch: number;
  /** When the last reservation began, and the uses since (the account's rate here). */
  reservedAt: number;
  usedSinceReserved: number;
  reserving?: Promise<void>;
  /** Requests waiting for `reserving`. */
  waiting: number;
  lastUsedAt: number;
  /** Until then: refused in memory (all reserved) or decided alone (database unreachable). */
  askAgainAt: number;
  unreachable: boolean;
  /** Uses decided alone while the database was unreachable. */
  usedAlone: number;
}

const counterKey = (accountId: string) => `api-account:${accountId}`;

/**
 * Reserves up to `wanted` of the window's allowance in one transaction; returns how many were
 * granted and what every process has reserved since. The upsert locks the row (PostgreSQL) or
 * runs under the single writer (SQLite), so two processes cannot both take the last ones.
 */
async function reserve(
  db: Db,
  key: string,
  windowStart: Date,
  wanted: number,
  limit: number,
): Promise<{ granted: number; reservedByAll: number }> {
  const { rateLimitCounters } = db.t;
  return db.write(
    async (tx) => {
      const [row] = await tx
        .insert(rateLimitCounters)
        .values({ key, windowStart, count: 0 })
        .onConflictDoUpdate({
          target: [rateLimitCounters.key, rateLimitCounters.windowStart],
          set: { count: sql`${rateLimitCounters.count}` },
        })
        .returning({ count: rateLimitCounters.count });
      const before = row?.count ?? 0;
      const granted = Math.max(0, Math.min(wanted, limit - before));
      if (granted > 0) {
        await tx
          .update(rateLimitCounters)
          .set({ count: sql`${rateLimitCounters.count} + ${granted}` })
          .where(
            and(eq(rateLimitCounters.key, key), eq(rateLimitCounters.windowStart, windowStart)),
          );
      }
      return { granted, reservedByAll: before + granted };
    },
    { isolation: "read committed" },
  );
}

async function giveBack(db: Db, key: string, windowStart: Date, unused: number): Promise<void> {
  const { rateLimitCounters } = db.t;
  await db.write(
    (tx) =>
      tx
        .update(rateLimitCounters)
        .set({
          count: sql`case when ${rateLimitCounters.count} > ${unused} then ${rateLimitCounters.count} - ${unused} else 0 end`,
        })
        .where(and(eq(rateLimitCounters.key, key), eq(rateLimitCounters.windowStart, windowStart))),
    { isolation: "read committed" },
  );
}

export function createSharedRateLimiter(
  deps: {
    db: Db;
    clock: Clock;
    isOpen: () => boolean;
    onError: (error: unknown) => void;
  },
  limitPerMinute: number,
  options: { recheckMs?: number; schedule?: boolean } = {},
): SharedRateLimiter {
  const { db, clock } = deps;
  const maxBatch = maxBatchFor(limitPerMinute);
  const recheckMs = options.recheckMs ?? defaultRecheckMs;
  const accounts = new Map<string, Allowance>();

  const decision = (a: Allowance, allowed: boolean, now: number): RateLimitDecision => ({
    allowed,
    limit: limitPerMinute,
    // As far as this process knows: what is left if every other process used what it reserved.
    remaining: allowed ? Math.max(0, limitPerMinute - a.reservedByAll + a.held) : 0,
    resetSeconds: Math.max(1, Math.ceil((a.windowStart + rateLimitWindowMs - now) / 1000)),
  });

  const allowanceOf = (accountId: string, now: number): Allowance => {
    const windowStart = now - (now % rateLimitWindowMs);
    let a = accounts.get(accountId);
    if (!a || a.windowStart !== windowStart) {
      // A new window: what was held in the last one is void with it.
      a = {
        windowStart,
        held: 0,
        reservedByAll: 0,
        batch: 1,
        reservedAt: Number.NEGATIVE_INFINITY,
        usedSinceReserved: 0,
        waiting: 0,
        lastUsedAt: now,
        askAgainAt: 0,
        unreachable: false,
        usedAlone: 0,
      };
      accounts.set(accountId, a);
    }
    return a;
  };

  const startReserving = (accountId: string, a: Allowance, now: number): Promise<void> => {
    a.reserving ??= (async () => {
      // Topped up to one batch (or the requests waiting), so a process never holds more unused
      // than `maxBatch`.
      const wanted = Math.min(maxBatch, Math.max(a.batch - a.held, a.waiting, 1));
      // The account's rate here since the last reservation began: whether a batch lasts it less
      // than `batchLifeMs`.
      const quick = a.usedSinceReserved * batchLifeMs > (now - a.reservedAt) * a.batch;
      a.usedSinceReserved = 0;
      a.reservedAt = now;
      try {
        if (!deps.isOpen()) throw new Error("the database is closed");
        const got = await reserve(
          db,
          counterKey(accountId),
          new Date(a.windowStart),
          wanted,
          limitPerMinute,
        );
        a.held += got.granted;
        a.reservedByAll = got.reservedByAll;
        // Up to `steadyBatch` by doubling; past it only while a batch lasts less than that.
        const grown = a.batch < steadyBatch ? Math.min(steadyBatch, a.batch * 2) : a.batch;
        a.batch = Math.min(maxBatch, quick && a.batch >= steadyBatch ? a.batch * 2 : grown);
        a.unreachable = false;
        if (got.granted === 0) a.askAgainAt = now + recheckMs;
      } catch (error) {
        a.unreachable = true;
        a.askAgainAt = now + recheckMs;
        deps.onError(error);
      } finally {
        a.reserving = undefined;
      }
    })();
    return a.reserving;
  };

  /** Takes one from what is held; reserves the next batch in the background when running low. */
  const take = (accountId: string, a: Allowance, now: number): RateLimitDecision => {
    a.held--;
    a.usedSinceReserved++;
    if (a.held * 2 < a.batch && !a.reserving && a.batch > 1) {
      void startReserving(accountId, a, now);
    }
    return decision(a, true, now);
  };

  const alone = (a: Allowance, now: number): RateLimitDecision => {
    const allowed = a.usedAlone < limitPerMinute;
    if (allowed) a.usedAlone++;
    return decision(a, allowed, now);
  };

  const waitForAllowance = async (
    accountId: string,
    a: Allowance,
    now: number,
  ): Promise<RateLimitDecision> => {
    for (;;) {
      a.waiting++;
      try {
        await startReserving(accountId, a, now);
      } finally {
        a.waiting--;
      }
      if (a.held > 0) return take(accountId, a, now);
      if (a.unreachable) return alone(a, now);
      if (a.askAgainAt > now) return decision(a, false, now);
    }
  };

  const returnIdle = async () => {
    const now = clock.now().getTime();
    for (const [accountId, a] of accounts) {
      if (a.windowStart + rateLimitWindowMs <= now) {
        accounts.delete(accountId); // its window ended: nothing to give back
        continue;
      }
      if (a.held === 0 || a.reserving || now - a.lastUsedAt < returnIdleAfterMs) continue;
      const unused = a.held;
      a.held = 0;
      a.batch = 1;
      a.reservedByAll -= unused;
      try {
        if (deps.isOpen())
          await giveBack(db, counterKey(accountId), new Date(a.windowStart), unused);
      } catch (error) {
        deps.onError(error); // kept reserved: the window's end frees it
      }
    }
  };

  let timer: ReturnType<typeof setInterval> | undefined;
  if (options.schedule !== false) {
    let running = false;
    timer = setInterval(() => {
      if (running) return;
      running = true;
      void returnIdle().finally(() => {
        running = false;
      });
    }, returnIdleAfterMs);
    timer.unref();
  }

  return {
    consume(accountId, at = clock.now()) {
      const now = at.getTime();
      const a = allowanceOf(accountId, now);
      a.lastUsedAt = now;
      if (a.held > 0) return take(accountId, a, now);
      if (a.askAgainAt > now) return a.unreachable ? alone(a, now) : decision(a, false, now);
      return waitForAllowance(accountId, a, now);
    },
    returnIdle,
    async close() {
      clearInterval(timer);
      for (const a of accounts.values()) a.lastUsedAt = Number.NEGATIVE_INFINITY;
      await returnIdle();
    },
  };
}
