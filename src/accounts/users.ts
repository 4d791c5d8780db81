import { eq } from "drizzle-orm";
import type { Db } from "../db/open.ts";
import { users } from "../db/schema.ts";
import { ApiError } from "../http/errors.ts";
import { hashPassword, passwordProblem, verifyPassword } from "./passwords.ts";
import { emailSchema } from "./service-accounts.ts";

export type UserRow = typeof users.$inferSelect;

export function findUserByEmail(db: Db, email: string): UserRow | undefined {
  const parsed = emailSchema.safeParse(email);
  if (!parsed.success) return undefined;
  return db.select().from(users).where(eq(users.email, parsed.data)).get();
}

/** Sets a user's password; `mustChange` forces a change at the next portal sign-in. */
export async function setUserPassword(
  db: Db,
  userId: string,
  password: string,
  mustChange = false,
): Promise<void> {
  const problem = passwordProblem(password);
  if (problem) throw new ApiError("invalid_request", `password ${problem}.`);
  const passwordHash = await hashPassword(password);
  const updated = db
    .update(users)
    .set({ passwordHash, mustChangePassword: mustChange })
    .where(eq(users.id, userId))
    .returning({ id: users.id })
    .all();
  if (updated.length === 0) throw new ApiError("not_found", `No user ${userId}.`);
}

/** A user's own password change: the current password is checked, the one-time flag cleared. */
export async function changePassword(
  db: Db,
  userId: string,
  input: { currentPassword: string; newPassword: string },
): Promise<void> {
  const user = db.select().from(users).where(eq(users.id, userId)).get();
  if (!user) throw new ApiError("not_found", `No user ${userId}.`);
  if (!user.passwordHash || !(await verifyPassword(input.currentPassword, user.passwordHash))) {
    throw new ApiError("invalid_credentials", "The current password is not correct.");
  }
  if (input.currentPassword === input.newPassword) {
    throw new ApiError("invalid_request", "newPassword: must differ from the current password.");
  }
  await setUserPassword(db, userId, input.newPassword, false);
}
