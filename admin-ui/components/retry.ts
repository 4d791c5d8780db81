import { localTime } from "./format.ts";

/** "Try again in 42 s (at 19:36)." from a 429's Retry-After seconds. */
export function formatRetry(retryAfterSeconds: number, nowMs: number = Date.now()): string {
  const at = new Date(nowMs + retryAfterSeconds * 1000);
  const wait =
    retryAfterSeconds >= 120
      ? `${Math.ceil(retryAfterSeconds / 60)} min`
      : `${Math.max(1, Math.ceil(retryAfterSeconds))} s`;
  return `Try again in ${wait} (at ${localTime(at.toISOString())}).`;
}
