// The portal-action limits of spec 8, counted over sliding windows in the database
// (src/limits/sliding-window.ts), so neither a restart nor a calendar boundary resets them.
// Excess answers 429 with a message the portal shows and `Retry-After`.
import type { Clock } from "../clock.ts";
import type { Db } from "../db/store.ts";
import { enforceWindow } from "../limits/sliding-window.ts";

export const registrationLimit = { limit: 10, windowMs: 60 * 60_000 } as const;
export const sendLimit = { limit: 10, windowMs: 60_000 } as const;

/** Spec 8: 10 endpoint registrations in any hour, counted across the whole account. */
export function consumeRegistration(db: Db, clock: Clock, serviceAccountId: string): Promise<void> {
  return enforceWindow(
    db,
    clock,
    { key: `endpoint-registrations:${serviceAccountId}`, ...registrationLimit },
    "Too many webhook endpoint registrations: at most 10 per hour per account",
  );
}

/** Spec 8: 10 test or verification sends in any minute, counted across the whole account. */
export function consumeSend(db: Db, clock: Clock, serviceAccountId: string): Promise<void> {
  return enforceWindow(
    db,
    clock,
    { key: `webhook-sends:${serviceAccountId}`, ...sendLimit },
    "Too many test or verification sends: at most 10 per minute per account",
  );
}
