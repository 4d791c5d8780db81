import { eq } from "drizzle-orm";
import type { Clock } from "../core/clock.ts";
import { type Db, first } from "../db/store.ts";
import { type CreatedAccount, createServiceAccount } from "./service-accounts.ts";

const defaultOperatorEmail = "admin@svc.localhost";

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
  // One transaction: instances starting together on an empty database create one operator
  // (SQLite's write lock serialises them; on PostgreSQL the loser's SERIALIZABLE transaction
  // fails, is retried, and finds the winner's operator).
  return db.write(async (tx) => {
    const { users } = tx.t;
    const existing = await first(
      tx.select({ id: users.id }).from(users).where(eq(users.isOperator, true)).limit(1),
    );
    if (existing) return undefined;
    return createServiceAccount(tx, clock, {
      email: options.email ?? defaultOperatorEmail,
      name: "Operators",
      isOperator: true,
      status: "active",
      ...(options.password !== undefined ? { password: options.password } : {}),
    });
  });
}
