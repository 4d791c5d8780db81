// The transactions date window: `from` and `to` are inclusive booking dates; by default
// the last 90 days up to today (UTC); at most 730 days; `from` after `to` is refused.
import { ApiError } from "../../core/errors.ts";

export const defaultWindowDays = 90;
export const maxWindowDays = 730;
const dayMs = 86_400_000;

export interface DateWindow {
  /** YYYY-MM-DD, inclusive. */
  from: string;
  /** YYYY-MM-DD, inclusive. */
  to: string;
}

function toDate(day: string): number {
  return Date.parse(`${day}T00:00:00.000Z`);
}

function toDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The window's length in days, both ends counted. */
export function windowDays(window: DateWindow): number {
  return Math.round((toDate(window.to) - toDate(window.from)) / dayMs) + 1;
}

/** Fills in the defaults and checks the rules; dates are already valid calendar dates. */
export function resolveDateWindow(now: Date, given: { from?: string; to?: string }): DateWindow {
  const to = given.to ?? toDay(now.getTime());
  const from = given.from ?? toDay(toDate(to) - (defaultWindowDays - 1) * dayMs);
  const window = { from, to };
  checkDateWindow(window);
  return window;
}

function checkDateWindow(window: DateWindow): void {
  if (window.from > window.to) {
    throw new ApiError(
      "invalid_request",
      `Invalid query parameter "from": ${window.from} is after "to" (${window.to}).`,
    );
  }
  const days = windowDays(window);
  if (days > maxWindowDays) {
    throw new ApiError(
      "invalid_request",
      `Invalid query parameters "from" and "to": the window ${window.from}..${window.to} spans ${days} days; at most ${maxWindowDays} are allowed.`,
    );
  }
}
