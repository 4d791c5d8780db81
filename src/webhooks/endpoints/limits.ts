// The portal-action limits of spec 8, counted over sliding windows in the database
// (src/limits/sliding-window.ts), so neither a restart nor a calendar boundary resets them.
// Excess answers 429 with a message the portal shows and `Retry-After`.
import type { Clock } from "../../core/clock.ts";
import type { Db } from "../../db/store.ts";
import {
  enforceWindow,
  peekWindow,
  takeFromWindow,
  type WindowRule,
  windowRefusal,
} from "../../limits/sliding-window.ts";

const registrationLimit = { limit: 10, windowMs: 60 * 60_000 } as const;
const sendLimit = { limit: 10, windowMs: 60_000 } as const;
/**
 * Registrations refused by the URL rules do not use the 10 per hour (docs/decisions.md "A refused
 * registration is not a registration"), but have their own, larger budget, so the form cannot be
 * used to probe which names resolve where.
 */
const refusedRegistrationLimit = { limit: 30, windowMs: 60 * 60_000 } as const;

const registrationMessage =
  "Too many webhook endpoint registrations: at most 10 per hour per account";
const refusedMessage = "Too many refused webhook endpoint URLs: at most 30 per hour per account";

function registrationRule(serviceAccountId: string): WindowRule {
  return { key: `endpoint-registrations:${serviceAccountId}`, ...registrationLimit };
}

function refusedRule(serviceAccountId: string): WindowRule {
  return { key: `endpoint-registrations-refused:${serviceAccountId}`, ...refusedRegistrationLimit };
}

/**
 * Before any work on a registration: 429 when either budget is spent. Peeks only; the attempt is
 * counted by `consumeRegistration` (accepted) or `countRefusedRegistration` (refused URL).
 */
export async function checkRegistrationBudgets(
  db: Db,
  clock: Clock,
  serviceAccountId: string,
): Promise<void> {
  const refused = await peekWindow(db, clock, refusedRule(serviceAccountId));
  if (!refused.allowed) throw windowRefusal(refused, clock, refusedMessage);
  const accepted = await peekWindow(db, clock, registrationRule(serviceAccountId));
  if (!accepted.allowed) throw windowRefusal(accepted, clock, registrationMessage);
}

/** Counts a registration refused by the URL rules against its own budget. */
export async function countRefusedRegistration(
  db: Db,
  clock: Clock,
  serviceAccountId: string,
): Promise<void> {
  await takeFromWindow(db, clock, refusedRule(serviceAccountId));
}

/**
 * Spec 8: 10 endpoint registrations in any hour, counted across the whole account. Called inside
 * the transaction that stores the endpoint, so count and insert are one.
 */
export function consumeRegistration(db: Db, clock: Clock, serviceAccountId: string): Promise<void> {
  return enforceWindow(db, clock, registrationRule(serviceAccountId), registrationMessage);
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
