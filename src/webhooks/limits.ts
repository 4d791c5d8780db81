// The portal-action limits of spec 8, counted in the database so a restart does not reset
// them (DESIGN.md "Limits"). Excess answers 429 with a message the portal shows.
import type { Clock } from "../clock.ts";
import type { Db } from "../db/store.ts";
import { ApiError } from "../http/errors.ts";
import { consumeLimit } from "../limits/counter.ts";

export const registrationLimit = { limit: 10, windowMs: 60 * 60_000 } as const;
export const sendLimit = { limit: 10, windowMs: 60_000 } as const;

async function enforce(
  db: Db,
  clock: Clock,
  key: string,
  rule: { limit: number; windowMs: number },
  what: string,
): Promise<void> {
  const decision = await consumeLimit(db, clock, { key, ...rule });
  if (decision.allowed) return;
  const retryAfterSeconds = Math.max(
    1,
    Math.ceil((decision.resetAt.getTime() - clock.now().getTime()) / 1000),
  );
  throw new ApiError(
    "rate_limited",
    `${what}. Try again in ${retryAfterSeconds} s (at ${decision.resetAt.toISOString()}).`,
    { "Retry-After": String(retryAfterSeconds) },
  );
}

/** Spec 8: 10 endpoint registrations per hour, counted across the whole account. */
export function consumeRegistration(db: Db, clock: Clock, serviceAccountId: string): Promise<void> {
  return enforce(
    db,
    clock,
    `endpoint-registrations:${serviceAccountId}`,
    registrationLimit,
    "Too many webhook endpoint registrations: at most 10 per hour per account",
  );
}

/** Spec 8: 10 test or verification sends per minute, counted across the whole account. */
export function consumeSend(db: Db, clock: Clock, serviceAccountId: string): Promise<void> {
  return enforce(
    db,
    clock,
    `webhook-sends:${serviceAccountId}`,
    sendLimit,
    "Too many test or verification sends: at most 10 per minute per account",
  );
}
