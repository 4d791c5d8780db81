import { describe, expect, test } from "bun:test";
import { consumeLimit } from "../../src/limits/counter.ts";
import { silentLogger } from "../../src/log.ts";
import { openServices } from "../../src/services.ts";
import { createFakeClock } from "../support/fake-clock.ts";
import { createTestServices, testMasterKeyHex } from "../support/services.ts";

describe("database-backed limits", () => {
  test("allows exactly `limit` uses per window and refuses the next without counting it", () => {
    const clock = createFakeClock("2026-01-01T00:00:10.000Z");
    const { db } = createTestServices({ clock });
    const rule = { key: "sends:a", limit: 3, windowMs: 60_000 };
    const decisions = Array.from({ length: 5 }, () => consumeLimit(db, clock, rule));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false, false]);
    expect(decisions.map((d) => d.remaining)).toEqual([2, 1, 0, 0, 0]);
    expect(decisions[3]?.resetAt.toISOString()).toBe("2026-01-01T00:01:00.000Z");
  });

  test("a new window starts fresh, and keys are counted separately", () => {
    const clock = createFakeClock("2026-01-01T00:00:59.000Z");
    const { db } = createTestServices({ clock });
    const rule = { key: "sends:a", limit: 1, windowMs: 60_000 };
    expect(consumeLimit(db, clock, rule).allowed).toBe(true);
    expect(consumeLimit(db, clock, rule).allowed).toBe(false);
    expect(consumeLimit(db, clock, { ...rule, key: "sends:b" }).allowed).toBe(true);
    clock.advance(1_000);
    expect(consumeLimit(db, clock, rule).allowed).toBe(true);
  });

  test("a restart does not reset a limit: the count lives in the database", () => {
    const clock = createFakeClock();
    const services = createTestServices({ clock });
    const rule = { key: "registrations:a", limit: 2, windowMs: 3_600_000 };
    consumeLimit(services.db, clock, rule);
    consumeLimit(services.db, clock, rule);
    services.database.close();
    const reopened = openServices(services.config, {
      clock,
      log: silentLogger,
      env: { SVC_MASTER_KEY: testMasterKeyHex },
    });
    expect(consumeLimit(reopened.db, clock, rule).allowed).toBe(false);
    reopened.database.close();
  });
});
