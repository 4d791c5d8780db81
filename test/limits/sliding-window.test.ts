import { describe, expect, test } from "bun:test";
import { ApiError } from "../../src/core/errors.ts";
import {
  enforceWindow,
  peekWindow,
  pruneWindowLog,
  takeFromWindow,
} from "../../src/limits/sliding-window.ts";
import { silentLogger } from "../../src/log/log.ts";
import { openServices } from "../../src/server/services.ts";
import { createFakeClock } from "../support/fake-clock.ts";
import { createTestServices, testMasterKeyHex } from "../support/services.ts";

const perMinute = { key: "sends:a", limit: 10, windowMs: 60_000 };

describe("sliding-window limits (spec 8: counted over the last window, not calendar slots)", () => {
  test("10 in a minute pass, the 11th is refused uncounted, and one passes again exactly when the oldest leaves the window", async () => {
    const clock = createFakeClock("2026-01-01T00:00:10.000Z");
    const { db } = await createTestServices({ clock });
    const allowed: boolean[] = [];
    for (let i = 0; i < 10; i++) {
      allowed.push((await takeFromWindow(db, clock, perMinute)).allowed);
      clock.advance(1_000);
    }
    expect(allowed).toEqual(Array(10).fill(true));
    // now 00:00:20; the oldest was counted at 00:00:10 and leaves at 00:01:10.
    const refused = await takeFromWindow(db, clock, perMinute);
    expect(refused).toEqual({
      allowed: false,
      remaining: 0,
      retryAt: new Date("2026-01-01T00:01:10.000Z"),
    });
    clock.set("2026-01-01T00:01:09.999Z");
    expect((await takeFromWindow(db, clock, perMinute)).allowed).toBe(false);
    clock.set("2026-01-01T00:01:10.000Z");
    expect((await takeFromWindow(db, clock, perMinute)).allowed).toBe(true);
    // The window is full again: the next frees when the action of 00:00:11 leaves.
    const next = await takeFromWindow(db, clock, perMinute);
    expect(next.retryAt).toEqual(new Date("2026-01-01T00:01:11.000Z"));
  });

  test("20 actions within seconds across a minute boundary: the second 10 are refused", async () => {
    const clock = createFakeClock("2026-01-01T00:00:57.000Z");
    const { db } = await createTestServices({ clock });
    const allowed: boolean[] = [];
    for (let i = 0; i < 20; i++) {
      allowed.push((await takeFromWindow(db, clock, perMinute)).allowed);
      clock.advance(300); // 20 actions in 6 s, crossing 00:01:00
    }
    expect(allowed).toEqual([...Array(10).fill(true), ...Array(10).fill(false)]);
  });

  test("20 registrations across an hour boundary: the second 10 are refused", async () => {
    const clock = createFakeClock("2026-01-01T00:59:50.000Z");
    const { db } = await createTestServices({ clock });
    const rule = { key: "registrations:a", limit: 10, windowMs: 3_600_000 };
    let passed = 0;
    for (let i = 0; i < 20; i++) {
      if ((await takeFromWindow(db, clock, rule)).allowed) passed++;
      clock.advance(1_000);
    }
    expect(passed).toBe(10);
  });

  test("keys are counted separately, and peeking counts nothing", async () => {
    const clock = createFakeClock();
    const { db } = await createTestServices({ clock });
    const rule = { key: "k:a", limit: 1, windowMs: 60_000 };
    expect((await peekWindow(db, clock, rule)).allowed).toBe(true);
    expect((await takeFromWindow(db, clock, rule)).allowed).toBe(true);
    expect((await peekWindow(db, clock, rule)).allowed).toBe(false);
    expect((await takeFromWindow(db, clock, { ...rule, key: "k:b" })).allowed).toBe(true);
  });

  test("the 429 names when the next action is allowed, with Retry-After in whole seconds rounded up", async () => {
    const clock = createFakeClock("2026-01-01T00:00:00.000Z");
    const { db } = await createTestServices({ clock });
    const rule = { key: "k:a", limit: 1, windowMs: 60_000 };
    await enforceWindow(db, clock, rule, "Too many");
    clock.advance(500);
    const error = await enforceWindow(db, clock, rule, "Too many").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    const apiError = error as ApiError;
    expect(apiError.status).toBe(429);
    expect(apiError.headers["Retry-After"]).toBe("60");
    expect(apiError.message).toBe(
      "Too many. The next one is allowed in 60 s (at 2026-01-01T00:01:00.000Z).",
    );
  });

  test("a restart does not reset a window: the log lives in the database", async () => {
    const clock = createFakeClock();
    const services = await createTestServices({ clock });
    const rule = { key: "registrations:a", limit: 2, windowMs: 3_600_000 };
    await takeFromWindow(services.db, clock, rule);
    await takeFromWindow(services.db, clock, rule);
    await services.database.close();
    const reopened = await openServices(services.config, {
      clock,
      log: silentLogger,
      env: { SVC_MASTER_KEY: testMasterKeyHex },
    });
    expect((await takeFromWindow(reopened.db, clock, rule)).allowed).toBe(false);
    await reopened.database.close();
  });

  test("racing actions never exceed the limit: count and insert are one transaction", async () => {
    const clock = createFakeClock();
    const { db } = await createTestServices({ clock });
    const rule = { key: "race", limit: 10, windowMs: 60_000 };
    const decisions = await Promise.all(
      Array.from({ length: 25 }, () => takeFromWindow(db, clock, rule)),
    );
    expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
    const { rateLimitLog } = db.t;
    expect(await db.$count(rateLimitLog)).toBe(10);
  });

  test("rows that left the window are pruned: by the key's own use and by the retention job", async () => {
    const clock = createFakeClock();
    const { db } = await createTestServices({ clock });
    const { rateLimitLog } = db.t;
    await takeFromWindow(db, clock, { key: "a", limit: 5, windowMs: 60_000 });
    await takeFromWindow(db, clock, { key: "b", limit: 5, windowMs: 60_000 });
    clock.advance(60_000);
    await takeFromWindow(db, clock, { key: "a", limit: 5, windowMs: 60_000 });
    expect(
      (await db.select({ key: rateLimitLog.key }).from(rateLimitLog)).map((r) => r.key).sort(),
    ).toEqual(["a", "b"]);
    await pruneWindowLog(db, clock.now());
    expect(
      (await db.select({ key: rateLimitLog.key }).from(rateLimitLog)).map((r) => r.key),
    ).toEqual(["a"]);
  });
});
