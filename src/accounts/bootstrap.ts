import { eq } from "drizzle-orm";
import type { Clock } from "../clock.ts";
import { type Db, first } from "../db/store.ts";
import { type CreatedAccount, createServiceAccount } from "./service-accounts.ts";

export const defaultOperatorEmail = "admin@svc.localhost";

/**
 * On a fresh instance, creates the first operator so the portal can be reached at all.
 * Returns the new account (with its one-time password when none was given), or undefined
 * when an operator already exists.
 */
export async function ensureFirstOperator(
  db: Db,
  clock: Clock,
  options: { email?: string; password?: string } = {},
): Promise<CreatedAccount | undefined> {
  const { users } = db.t;
  const existing = await first(
    db.select({ id: users.id }).from(users).where(eq(users.isOperator, true)).limit(1),
  );
  if (existing) return undefined;
  return createServiceAccount(db, clock, {
    email: options.email ?? defaultOperatorEmail,
    name: "Operators",
    isOperator: true,
    status: "active",
    ...(options.password !== undefined ? { password: options.password } : {}),
  });
}
