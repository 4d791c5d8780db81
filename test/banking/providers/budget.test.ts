import { describe, expect, test } from "bun:test";
import {
  dayMs,
  enableBankingBudget,
  planPull,
  simplefinBudget,
} from "../../../src/banking/providers/budget.ts";

const now = new Date("2026-01-15T12:00:00Z");
const hoursAgo = (h: number) => new Date(now.getTime() - h * 3_600_000);
const hoursLater = (h: number) => new Date(now.getTime() + h * 3_600_000);
const both = ["balances", "recent_transactions"] as const;

describe("request budgets", () => {
  test("Enable Banking: a fresh account fetches balances then recent transactions; the next pull is 12 h later", () => {
    const plan = planPull({ budget: enableBankingBudget, now, spentAt: [], wanted: both });
    expect(plan.fetch).toEqual(["balances", "recent_transactions"]);
    expect(plan.nextAllowedAt).toEqual(hoursLater(12));
    expect(plan.remaining).toBe(2);
  });

  test("Enable Banking: a pull before the pacing gap fetches nothing and says when to come back", () => {
    const plan = planPull({
      budget: enableBankingBudget,
      now,
      spentAt: [hoursAgo(6), hoursAgo(6)],
      wanted: both,
    });
    expect(plan.fetch).toEqual([]);
    expect(plan.nextAllowedAt).toEqual(hoursLater(6));
  });

  test("Enable Banking: with one request left only the balance is fetched (most valuable first)", () => {
    const plan = planPull({
      budget: enableBankingBudget,
      now,
      spentAt: [hoursAgo(23), hoursAgo(23), hoursAgo(13)],
      wanted: ["recent_transactions", "balances", "history"],
    });
    expect(plan.fetch).toEqual(["balances"]);
    expect(plan.remaining).toBe(0);
    // The next request fits when the oldest one leaves the 24 h window.
    expect(plan.nextAllowedAt.getTime()).toBeGreaterThanOrEqual(hoursAgo(23).getTime() + dayMs);
  });

  test("Enable Banking: an exhausted budget fetches nothing until the oldest request is a day old", () => {
    const spentAt = [hoursAgo(20), hoursAgo(20), hoursAgo(14), hoursAgo(14)];
    const plan = planPull({ budget: enableBankingBudget, now, spentAt, wanted: both });
    expect(plan.fetch).toEqual([]);
    expect(plan.nextAllowedAt).toEqual(hoursLater(4));
  });

  test("requests older than the period no longer count", () => {
    const spentAt = [hoursAgo(30), hoursAgo(30), hoursAgo(25), hoursAgo(25)];
    const plan = planPull({ budget: enableBankingBudget, now, spentAt, wanted: both });
    expect(plan.fetch).toEqual(["balances", "recent_transactions"]);
  });

  test("SimpleFIN: one bundled request reads everything; pulls are an hour apart (24 a day)", () => {
    const plan = planPull({
      budget: simplefinBudget,
      now,
      spentAt: [],
      wanted: ["balances", "recent_transactions", "history"],
    });
    expect(plan.fetch).toEqual(["balances", "recent_transactions", "history"]);
    expect(plan.remaining).toBe(23);
    expect(plan.nextAllowedAt).toEqual(hoursLater(1));
    const soon = planPull({
      budget: simplefinBudget,
      now,
      spentAt: [new Date(now.getTime() - 30 * 60_000)],
      wanted: ["balances"],
    });
    expect(soon.fetch).toEqual([]);
    expect(soon.nextAllowedAt).toEqual(new Date(now.getTime() + 30 * 60_000));
  });
});
