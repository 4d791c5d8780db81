import { and, eq, isNull } from "drizzle-orm";
import type { Clock } from "../core/clock.ts";
import { ApiError } from "../core/errors.ts";
import type { Row } from "../db/schema.ts";
import { type Db, first } from "../db/store.ts";
import { hashPassword, passwordProblem, verifyPassword } from "./passwords.ts";
import { emailSchema } from "./service-accounts.ts";

export type UserRow = Row<"users">;

export async function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  const parsed = emailSchema.safeParse(email);
  if (!parsed.success) return undefined;
  const { users } = db.t;
  return first(db.select().from(users).where(eq(users.email, parsed.data)));
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
  const { users } = db.t;
  const updated = await db.write((tx) =>
    tx
      .update(users)
      .set({ passwordHash, mustChangePassword: mustChange })
      .where(eq(users.id, userId))
      .returning({ id: users.id }),
  );
  if (updated.length === 0) throw new ApiError("not_found", `No user ${userId}.`);
}

/**
 * A user's own password change: the current password is checked, the one-time flag cleared.
 * `justSignedInWithOneTimePassword`: the caller's session signed in with the one-time password
 * moments ago (it must be replaced at once), so it is not asked for a second time.
 */
export async function changePassword(
  db: Db,
  userId: string,
  input: {
    currentPassword?: string | undefined;
    newPassword: string;
    justSignedInWithOneTimePassword?: boolean;
  },
): Promise<void> {
  const { users } = db.t;
  const user = await first(db.select().from(users).where(eq(users.id, userId)));
  if (!user) throw new ApiError("not_found", `No user ${userId}.`);
  if (input.currentPassword === undefined || input.currentPassword === "") {
    if (user.mustChangePassword && input.justSignedInWithOneTimePassword) {
      await setUserPassword(db, userId, input.newPassword, false);
      return;
    }
    throw new ApiError("invalid_request", "currentPassword: required.");
  }
  if (!user.passwordHash || !(await verifyPassword(input.currentPassword, user.passwordHash))) {
    throw new ApiError("invalid_credentials", "The current password is not correct.");
  }
  if (input.currentPassword === input.newPassword) {
    throw new ApiError("invalid_request", "newPassword: must differ from the current password.");
  }
  await setUserPassword(db, userId, input.newPassword, false);
}

/**
 * Getting started: every user sees the quick start from the first sign-in until they
 * dismiss it. Kept per user in the database (not in the browser), so dismissing it once holds
 * on every device and browser, and a cleared browser does not bring it back. Operators get it
 * too: their own account is where they try the API first (the portal adds their own steps).
 */
export async function quickStartShown(db: Db, userId: string): Promise<boolean> {
  const { users } = db.t;
  const user = await first(
    db.select({ dismissedAt: users.quickStartDismissedAt }).from(users).where(eq(users.id, userId)),
  );
  return user !== undefined && user.dismissedAt === null;
}

export async function dismissQuickStart(db: Db, clock: Clock, userId: string): Promise<void> {
  const { users } = db.t;
  await db.write((tx) =>
    tx
      .update(users)
      .set({ quickStartDismissedAt: clock.now() })
      .where(and(eq(users.id, userId), isNull(users.quickStartDismissedAt))),
  );
}
