import { describe, expect, test } from "bun:test";
import { consumeLimit } from "../../src/limits/counter.ts";
import { silentLogger } from "../../src/log/log.ts";
import { openServices } from "../../src/server/services.ts";
import { createFakeClock } from "../support/fake-clock.ts";
import { createTestServices, testMasterKeyHex } from "../support/services.ts";

describe("database-backed limits", () => {
  test("allows exactly `limit` uses per window and refuses the next without counting it", async () => {
    const clock = createFakeClock("2026-01-01T00:00:10.000Z");
    const { db } = await createTestServices({ clock });
    const rule = { key: "sends:a", limit: 3, windowMs: 60_000 };
    const decisions = [];
    for (let i = 0; i < 5; i++) decisions.push(await consumeLimit(db, clock, rule));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false, false]);
    expect(decisions.map((d) => d.remaining)).toEqual([2, 1, 0, 0, 0]);
    expect(decisions[3]?.resetAt.toISOString()).toBe("2026-01-01T00:01:00.000Z");
  });

  test("a new window starts fresh, and keys are counted separately", async () => {
    const clock = createFakeClock("2026-01-01T00:00:59.000Z");
    const { db } = await createTestServices({ clock });
    const rule = { key: "sends:a", limit: 1, windowMs: 60_000 };
    expect((await consumeLimit(db, clock, rule)).allowed).toBe(true);
    expect((await consumeLimit(db, clock, rule)).allowed).toBe(false);
    expect((await consumeLimit(db, clock, { ...rule, key: "sends:b" })).allowed).toBe(true);
    clock.advance(1_000);
    expect((await consumeLimit(db, clock, rule)).allowed).toBe(true);
  });

  test("a restart does not reset a limit: the count lives in the database", async () => {
    const clock = createFakeClock();
    const services = await createTestServices({ clock });
    const rule = { key: "registrations:a", limit: 2, windowMs: 3_600_000 };
    await consumeLimit(services.db, clock, rule);
    await consumeLimit(services.db, clock, rule);
    await services.database.close();
    const reopened = await openServices(services.config, {
      clock,
      log: silentLogger,
      env: { SVC_MASTER_KEY: testMasterKeyHex },
    });
    expect((await consumeLimit(reopened.db, clock, rule)).allowed).toBe(false);
    await reopened.database.close();
  });
});
