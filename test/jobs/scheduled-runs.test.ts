// Scheduled jobs run once per tick across instances sharing one database.
import { afterAll, describe, expect, test } from "bun:test";
import { Cron } from "croner";
import { openDatabase } from "../../src/db/open.ts";
import { claimScheduledRun, halfInterval } from "../../src/scheduling/scheduled-runs.ts";
import { createTestServices } from "../support/services.ts";

const services = await createTestServices();
const other = openDatabase(services.config);
afterAll(async () => {
  await other.close();
  await services.database.close();
});

describe("once per tick across the cluster", () => {
  test("of several instances claiming the same tick at once, exactly one runs it", async () => {
    const now = new Date("2026-11-25T12:00:00.000Z");
    const claims = await Promise.all([
      claimScheduledRun(services.db, "sync", now, 450_000),
      claimScheduledRun(other.db, "sync", new Date(now.getTime() + 3), 450_000),
      claimScheduledRun(services.db, "sync", new Date(now.getTime() + 900), 450_000),
      claimScheduledRun(other.db, "sync", new Date(now.getTime() - 700), 450_000),
    ]);
    expect(claims.filter(Boolean)).toHaveLength(1);
  });

  test("the next tick, half an interval later or more, runs again; another job is independent", async () => {
    const now = new Date("2026-11-26T08:00:00.000Z");
    expect(await claimScheduledRun(services.db, "retention", now, 60_000)).toBe(true);
    expect(
      await claimScheduledRun(other.db, "retention", new Date(now.getTime() + 59_999), 60_000),
    ).toBe(false);
    expect(
      await claimScheduledRun(other.db, "retention", new Date(now.getTime() + 60_000), 60_000),
    ).toBe(true);
    expect(await claimScheduledRun(services.db, "mail", now, 60_000)).toBe(true);
  });

  test("the gap is half the schedule's interval, at least a second", () => {
    const every15Minutes = new Cron("*/15 * * * *", { paused: true });
    const everySecond = new Cron("* * * * * *", { paused: true });
    expect(halfInterval(every15Minutes)).toBe(450_000);
    expect(halfInterval(everySecond)).toBe(1_000);
    every15Minutes.stop();
    everySecond.stop();
  });
});
