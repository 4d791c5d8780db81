// The read-API rate limit shared by every process on one database (issue 16: N instances must
// not multiply a key's limit by N). Each request is still decided in memory (no database work on
// the read path); every `syncIntervalMs` each process adds the uses it counted since the last
// sync to the key's row of rate_limit_counters (one upsert per key used) and learns the total of
// every process from the same statement. A key can therefore overshoot its limit only by what
// the other processes allowed within one sync interval (documented in the operator guide).
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/store.ts";
import { type KeyRateLimiter, type RateLimitDecision, rateLimitWindowMs } from "./rate-limit.ts";

export const rateLimitSyncIntervalMs = 250;

export interface SharedKeyRateLimiter extends KeyRateLimiter {
  /** Adds this process's new uses to the database and learns everyone's totals. */
  sync(): Promise<void>;
  /** Stops the periodic sync. */
  close(): void;
}

export function createSharedKeyRateLimiter(
  deps: {
    db: Db;
    clock: Clock;
    isOpen: () => boolean;
    onSyncError: (error: unknown) => void;
  },
  limitPerMinute: number,
  syncIntervalMs = rateLimitSyncIntervalMs,
): SharedKeyRateLimiter {
  let windowStart = 0;
  /** Uses counted here since the last sync, and the cluster's total as of the last sync. */
  let unsynced = new Map<string, number>();
  let known = new Map<string, number>();
  /** Uses on their way to the database: still counted until the sync's totals include them. */
  let inFlight = new Map<string, number>();
  const roll = (now: number) => {
    const start = now - (now % rateLimitWindowMs);
    if (start !== windowStart) {
      windowStart = start;
      unsynced = new Map();
      known = new Map();
      inFlight = new Map();
    }
  };
  let syncing = false;
  const sync = async () => {
    roll(deps.clock.now().getTime());
    if ((unsynced.size === 0 && known.size === 0) || !deps.isOpen()) return;
    const batch = unsynced;
    const start = windowStart;
    unsynced = new Map();
    inFlight = batch;
    // Keys used here this window but not since the last sync: only their totals are read.
    const readOnly = [...known.keys()].filter((keyId) => !batch.has(keyId));
    const { rateLimitCounters } = deps.db.t;
    try {
      const totals = await deps.db.write(async (tx) => {
        const out: [string, number][] = [];
        if (readOnly.length > 0) {
          const rows = await tx
            .select({ key: rateLimitCounters.key, count: rateLimitCounters.count })
            .from(rateLimitCounters)
            .where(
              and(
                inArray(
                  rateLimitCounters.key,
                  readOnly.map((keyId) => `api:${keyId}`),
                ),
                eq(rateLimitCounters.windowStart, new Date(start)),
              ),
            );
          for (const row of rows) out.push([row.key.slice("api:".length), row.count]);
        }
        for (const [keyId, uses] of batch) {
          const [row] = await tx
            .insert(rateLimitCounters)
            .values({ key: `api:${keyId}`, windowStart: new Date(start), count: uses })
            .onConflictDoUpdate({
              target: [rateLimitCounters.key, rateLimitCounters.windowStart],
              set: { count: sql`${rateLimitCounters.count} + ${uses}` },
            })
            .returning({ count: rateLimitCounters.count });
          out.push([keyId, row?.count ?? uses]);
        }
        return out;
      });
      if (start !== windowStart) return; // the window ended meanwhile
      for (const [keyId, total] of totals) known.set(keyId, total);
      if (inFlight === batch) inFlight = new Map();
    } catch (error) {
      // Not added: counted again at the next sync, so no use is lost.
      if (start !== windowStart) return;
      for (const [keyId, uses] of batch) unsynced.set(keyId, (unsynced.get(keyId) ?? 0) + uses);
      if (inFlight === batch) inFlight = new Map();
      deps.onSyncError(error);
    }
  };
  const timer = setInterval(() => {
    if (syncing) return;
    syncing = true;
    void sync().finally(() => {
      syncing = false;
    });
  }, syncIntervalMs);
  timer.unref();
  return {
    consume(keyId, at = deps.clock.now()): RateLimitDecision {
      const now = at.getTime();
      roll(now);
      const local = unsynced.get(keyId) ?? 0;
      const used = (known.get(keyId) ?? 0) + (inFlight.get(keyId) ?? 0) + local;
      const allowed = used < limitPerMinute;
      if (allowed) unsynced.set(keyId, local + 1);
      return {
        allowed,
        limit: limitPerMinute,
        remaining: Math.max(0, limitPerMinute - used - (allowed ? 1 : 0)),
        resetSeconds: Math.max(1, Math.ceil((windowStart + rateLimitWindowMs - now) / 1000)),
      };
    },
    sync,
    close: () => clearInterval(timer),
  };
}
