import { describe, expect, test } from "bun:test";
import {
  firstReconnectDelayMs,
  maxReconnectDelayMs,
  reconnectDelayMs,
} from "../../src/listen/backoff.ts";

describe("reconnect backoff", () => {
  test("starts at 0.5 s and doubles up to a 15 s cap", () => {
    expect(firstReconnectDelayMs).toBe(500);
    expect(maxReconnectDelayMs).toBe(15_000);
    expect([1, 2, 3, 4, 5, 6, 7, 100].map(reconnectDelayMs)).toEqual([
      500, 1000, 2000, 4000, 8000, 15_000, 15_000, 15_000,
    ]);
  });

  test("no failures yet (after a connection was open) means the schedule starts over", () => {
    expect(reconnectDelayMs(0)).toBe(0);
  });
});
