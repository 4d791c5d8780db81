// The read-API rate limit of an account across processes on one database
// (src/api/middleware/shared-rate-limit.ts), on this run's engine: two stores stand for two
// processes. Allowance is reserved from the database before it is used, so the processes together
// never answer more than the limit, however fast the requests come.
import { afterAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import type { RateLimitDecision } from "../../src/api/middleware/rate-limit.ts";
import {
  createSharedRateLimiter,
  maxBatchFor,
  type SharedRateLimiter,
} from "../../src/api/middleware/shared-rate-limit.ts";
import { openDatabase } from "../../src/db/open.ts";
import { createFakeClock } from "../support/fake-clock.ts";
import { createTestServices } from "../support/services.ts";

const clock = createFakeClock();
const services = await createTestServices({ clock });
const other = openDatabase(services.config);
afterAll(async () => {
  await other.close();
  await services.database.close();
});

function limiter(db: typeof services.db, limit: number): SharedRateLimiter {
  const shared = createSharedRateLimiter(
    { db, clock, isOpen: () => true, onError: (error) => console.error(error) },
    limit,
    { schedule: false },
  );
  afterAll(() => shared.close());
  return shared;
}

async function allowedOf(decisions: (RateLimitDecision | Promise<RateLimitDecision>)[]) {
  return (await Promise.all(decisions)).filter((d) => d.allowed).length;
}

describe("the read-API rate limit of an account, held across processes", () => {
  test("60 requests fired at once at two processes against a limit of 30: exactly 30 allowed", async () => {
    clock.set("2026-11-25T10:00:05.000Z");
    const a = limiter(services.db, 30);
    const b = limiter(other.db, 30);
    const decisions = [];
    for (let i = 0; i < 30; i++) decisions.push(a.consume("account-1"), b.consume("account-1"));
    expect(await allowedOf(decisions)).toBe(30);
    // Once a process has found the allowance all reserved, it refuses in memory for a while.
    expect(await a.consume("account-1")).toMatchObject({ allowed: false, resetSeconds: 55 });
    expect(a.consume("account-1")).toMatchObject({ allowed: false, resetSeconds: 55 });
    // Another account and the next minute are counted afresh.
    expect(await allowedOf([a.consume("account-2")])).toBe(1);
    clock.set("2026-11-25T10:01:00.000Z");
    expect(await allowedOf([b.consume("account-1")])).toBe(1);
  });

  test("with batches (limit 600): 1,000 at once at two processes never exceed the limit, and leave at most one batch per process unused", async () => {
    clock.set("2026-11-25T11:00:05.000Z");
    const a = limiter(services.db, 600);
    const b = limiter(other.db, 600);
    const decisions = [];
    for (let i = 0; i < 500; i++) decisions.push(a.consume("account-3"), b.consume("account-3"));
    const allowed = await allowedOf(decisions);
    expect(allowed).toBeLessThanOrEqual(600);
    expect(allowed).toBeGreaterThanOrEqual(600 - 2 * maxBatchFor(600));
  });

  test("while a batch is held, a request is decided in memory (no promise, no database)", async () => {
    clock.set("2026-11-25T12:00:05.000Z");
    const a = limiter(services.db, 600);
    // Batches double from 1 while the account is used; each reservation is awaited once.
    let sync = 0;
    for (let i = 0; i < 100; i++) {
      const decided = a.consume("account-4");
      if (decided instanceof Promise) await decided;
      else sync++;
    }
    expect(sync).toBeGreaterThan(80);
  });

  test("a process never holds more than one batch (1/50 of the limit) reserved and unused", async () => {
    clock.set("2026-11-25T15:00:05.000Z");
    const a = limiter(services.db, 600);
    const { rateLimitCounters } = services.db.t;
    for (let used = 1; used <= 200; used++) {
      await a.consume("account-7");
      await Bun.sleep(0); // a reservation in the background may land
      const [row] = await services.db
        .select({ count: rateLimitCounters.count })
        .from(rateLimitCounters)
        .where(eq(rateLimitCounters.key, "api-account:account-7"));
      expect((row?.count ?? 0) - used).toBeLessThanOrEqual(maxBatchFor(600));
    }
  });

  test("while a batch lasts less than a second, batches grow past 100, never past 1/50 of the limit, so few reservations are made", async () => {
    clock.set("2026-11-25T16:00:05.000Z");
    const limit = 600_000; // batches of up to 12,000
    const a = limiter(services.db, limit);
    const { rateLimitCounters } = services.db.t;
    const reservedNow = async () => {
      const [row] = await services.db
        .select({ count: rateLimitCounters.count })
        .from(rateLimitCounters)
        .where(eq(rateLimitCounters.key, "api-account:account-8"));
      return row?.count ?? 0;
    };
    // The fake clock stands still: every batch is used up at once, the highest rate there is.
    let reservations = 0;
    let largestUnused = 0;
    let reserved = 0;
    for (let used = 1; used <= 50_000; used++) {
      const decided = a.consume("account-8");
      if (decided instanceof Promise) await decided;
      if (used % 500 === 0) {
        await Bun.sleep(0); // a reservation in the background may land
        const now = await reservedNow();
        if (now !== reserved) reservations++;
        reserved = now;
        largestUnused = Math.max(largestUnused, now - used);
      }
    }
    expect(largestUnused).toBeGreaterThan(100);
    expect(largestUnused).toBeLessThanOrEqual(maxBatchFor(limit));
    expect(reservations).toBeLessThan(30);
  });

  test("once a batch of 100 lasts over a second, batches stay at 100, whatever the limit", async () => {
    clock.set("2026-11-25T17:00:05.000Z");
    const a = limiter(services.db, 600_000);
    const { rateLimitCounters } = services.db.t;
    let largestUnused = 0;
    for (let used = 1; used <= 3_000; used++) {
      clock.advance(15); // 67 a second: a batch of 100 lasts 1.5 s
      const decided = a.consume("account-9");
      if (decided instanceof Promise) await decided;
      if (used % 50 === 0) {
        await Bun.sleep(0); // a reservation in the background may land
        const [row] = await services.db
          .select({ count: rateLimitCounters.count })
          .from(rateLimitCounters)
          .where(eq(rateLimitCounters.key, "api-account:account-9"));
        largestUnused = Math.max(largestUnused, (row?.count ?? 0) - used);
      }
    }
    expect(largestUnused).toBeGreaterThan(12); // batches did grow
    expect(largestUnused).toBeLessThanOrEqual(100);
  });

  test("what an idle process holds unused is given back for the others", async () => {
    clock.set("2026-11-25T13:00:05.000Z");
    const a = limiter(services.db, 100); // batches of up to 2
    const b = limiter(other.db, 100);
    for (let i = 0; i < 10; i++) await a.consume("account-5");
    const held = 100 - 10;
    let allowedB = 0;
    for (let i = 0; i < held; i++) if ((await b.consume("account-5")).allowed) allowedB++;
    expect(allowedB).toBeLessThan(held); // a still holds some
    clock.advance(1_000);
    await a.returnIdle();
    clock.advance(1_000); // b asks the database again
    for (let i = allowedB; i < held; i++) expect((await b.consume("account-5")).allowed).toBe(true);
    expect((await b.consume("account-5")).allowed).toBe(false);
  });

  test("while the database cannot be reached, each process decides alone (at most the limit)", async () => {
    clock.set("2026-11-25T14:00:05.000Z");
    const errors: unknown[] = [];
    const c = createSharedRateLimiter(
      { db: services.db, clock, isOpen: () => false, onError: (error) => errors.push(error) },
      3,
      { schedule: false },
    );
    const allowed = await allowedOf(Array.from({ length: 5 }, () => c.consume("account-6")));
    expect(allowed).toBe(3);
    expect(errors.length).toBeGreaterThan(0);
  });
});
