// What the provider transform tests check of a skip tally: how many rows or accounts were
// skipped, and that every skip carries one of the named reasons of src/banking/skips.ts.
import { type SkipTally, skipReasons } from "../../src/banking/skips.ts";

/** One of the named skip reasons. */
export function isSkipReason(value: unknown): boolean {
  return typeof value === "string" && Object.hasOwn(skipReasons, value);
}

/** Every reason the tally counts is a named one. */
export function reasonsNamed(tally: SkipTally): boolean {
  return Object.keys(tally).every(isSkipReason);
}

/** How many the tally counts, over all reasons. */
export function skippedCount(tally: SkipTally): number {
  return Object.values(tally).reduce((sum, n) => sum + (n ?? 0), 0);
}
