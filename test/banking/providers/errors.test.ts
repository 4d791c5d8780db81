import { describe, expect, test } from "bun:test";
import {
  defaultRetryAfterMs,
  failuresBeforeError,
  ProviderError,
  parseRetryAfter,
  statusAfterFailure,
  statusAfterSuccess,
} from "../../../src/banking/providers/errors.ts";

const linked = { status: "linked" as const, consecutiveFailures: 0 };

describe("provider error table", () => {
  test("consent expired -> expired", () => {
    const out = statusAfterFailure(new ProviderError("consent_expired", "x"), linked);
    expect(out.status).toBe("expired");
    expect(out.countsAsFailure).toBe(true);
  });

  test("consent revoked -> suspended", () => {
    expect(statusAfterFailure(new ProviderError("consent_revoked", "x"), linked).status).toBe(
      "suspended",
    );
  });

  test("user declined -> rejected", () => {
    const awaiting = { status: "awaiting_auth" as const, consecutiveFailures: 0 };
    expect(statusAfterFailure(new ProviderError("user_declined", "x"), awaiting).status).toBe(
      "rejected",
    );
  });

  test("rate limited -> status unchanged, not a failure, retry after the provider's wait", () => {
    const out = statusAfterFailure(
      new ProviderError("rate_limited", "x", { retryAfterMs: 120_000 }),
      { status: "linked", consecutiveFailures: 2 },
    );
    expect(out).toEqual({
      status: "linked",
      countsAsFailure: false,
      consecutiveFailures: 2,
      retryAfterMs: 120_000,
    });
    const noHeader = statusAfterFailure(new ProviderError("rate_limited", "x"), linked);
    expect(noHeader.retryAfterMs).toBe(defaultRetryAfterMs);
  });

  test("provider or bank unavailable -> error only after repeated failures", () => {
    let connection: { status: "linked" | "error"; consecutiveFailures: number } = linked;
    const statuses: string[] = [];
    for (let i = 0; i < failuresBeforeError; i++) {
      const out = statusAfterFailure(new ProviderError("unavailable", "down"), connection);
      connection = {
        status: out.status as "linked" | "error",
        consecutiveFailures: out.consecutiveFailures,
      };
      statuses.push(out.status);
    }
    expect(statuses).toEqual([...Array(failuresBeforeError - 1).fill("linked"), "error"]);
  });

  test("bad credentials or configuration -> error at once", () => {
    expect(statusAfterFailure(new ProviderError("bad_config", "x"), linked).status).toBe("error");
  });

  test("the next good sync -> linked, failure count reset", () => {
    expect(statusAfterSuccess()).toEqual({ status: "linked", consecutiveFailures: 0 });
  });

  test("Retry-After is read as seconds or as an HTTP date", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter("30", now)).toBe(30_000);
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:01:00 GMT", now)).toBe(60_000);
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter("soon", now)).toBeUndefined();
  });
});
