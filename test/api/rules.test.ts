// Unit tests of the read API's rules: the date window and the per-account rate limit.
import { describe, expect, test } from "bun:test";
import { createLocalRateLimiter, rateLimitHeaders } from "../../src/api/middleware/rate-limit.ts";
import { resolveDateWindow, windowDays } from "../../src/api/transactions/date-window.ts";
import { ApiError } from "../../src/core/errors.ts";
import { createFakeClock } from "../support/fake-clock.ts";

const now = new Date("2026-01-15T23:59:59.999Z");

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError && error.code === "invalid_request") return error.message;
  }
  throw new Error("expected 400 invalid_request");
}

describe("transactions date window", () => {
  test("default: 90 days ending today (UTC), both ends counted", () => {
    const window = resolveDateWindow(now, {});
    expect(window).toEqual({ from: "2025-10-18", to: "2026-01-15" });
    expect(windowDays(window)).toBe(90);
  });

  test("only `to`: the 90 days ending then; only `from`: up to today", () => {
    expect(resolveDateWindow(now, { to: "2024-03-01" })).toEqual({
      from: "2023-12-03",
      to: "2024-03-01",
    });
    expect(resolveDateWindow(now, { from: "2026-01-01" })).toEqual({
      from: "2026-01-01",
      to: "2026-01-15",
    });
  });

  test("a single day (from = to) is a window of one day", () => {
    expect(windowDays(resolveDateWindow(now, { from: "2026-01-05", to: "2026-01-05" }))).toBe(1);
  });

  test("at most 730 days, counting both ends, across a leap year", () => {
    expect(windowDays(resolveDateWindow(now, { from: "2024-01-01", to: "2025-12-30" }))).toBe(730);
    expect(
      refusal(() => resolveDateWindow(now, { from: "2024-01-01", to: "2025-12-31" })),
    ).toContain("spans 731 days");
  });

  test("from after to is refused, naming from", () => {
    expect(refusal(() => resolveDateWindow(now, { from: "2026-01-16" }))).toContain('"from"');
  });
});

describe("per-account rate limit (fixed one-minute windows)", () => {
  test("counts each account separately and refuses beyond the limit until the window ends", () => {
    const clock = createFakeClock("2026-01-15T09:00:45.000Z");
    const limiter = createLocalRateLimiter(clock, 2);
    expect(limiter.consume("a")).toEqual({
      allowed: true,
      limit: 2,
      remaining: 1,
      resetSeconds: 15,
    });
    expect(limiter.consume("a").remaining).toBe(0);
    expect(limiter.consume("a")).toEqual({
      allowed: false,
      limit: 2,
      remaining: 0,
      resetSeconds: 15,
    });
    expect(limiter.consume("b").allowed).toBe(true);
    clock.advance(15_000);
    expect(limiter.consume("a")).toEqual({
      allowed: true,
      limit: 2,
      remaining: 1,
      resetSeconds: 60,
    });
  });

  test("Retry-After is never 0 within the last fraction of a second", () => {
    const clock = createFakeClock("2026-01-15T09:00:59.900Z");
    const limiter = createLocalRateLimiter(clock, 1);
    limiter.consume("a");
    expect(limiter.consume("a").resetSeconds).toBe(1);
  });

  test("headers follow the IETF RateLimit fields", () => {
    expect(
      rateLimitHeaders({ allowed: true, limit: 600, remaining: 599, resetSeconds: 42 }),
    ).toEqual({
      "RateLimit-Limit": "600",
      "RateLimit-Remaining": "599",
      "RateLimit-Reset": "42",
      "RateLimit-Policy": "600;w=60",
    });
  });
});
