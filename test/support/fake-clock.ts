import type { Clock } from "../../src/core/clock.ts";

export interface FakeClock extends Clock {
  advance(ms: number): Date;
  set(at: Date | string): void;
}

/** A clock that only moves when the test moves it. */
export function createFakeClock(start: Date | string = "2026-01-15T09:00:00.000Z"): FakeClock {
  let current = new Date(start).getTime();
  return {
    now: () => new Date(current),
    advance(ms) {
      current += ms;
      return new Date(current);
    },
    set(at) {
      current = new Date(at).getTime();
    },
  };
}
