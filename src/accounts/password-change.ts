// The portal's password change, throttled like sign-in: the current password is a
// guess like any other, so a stolen session cannot brute-force it. Attempts are counted per user
// and per client address over the sign-in window, in the database (sliding windows).

import type { Clock } from "../core/clock.ts";
import type { Db } from "../db/store.ts";
import { takeFromWindow, type WindowRule, windowRefusal } from "../limits/sliding-window.ts";
import { signInAttemptsPerAddress, signInAttemptsPerEmail, signInWindowMs } from "./sign-in.ts";
import { changePassword } from "./users.ts";

const refusal = "Too many password change attempts";

async function take(db: Db, clock: Clock, rule: WindowRule): Promise<void> {
  const decision = await takeFromWindow(db, clock, rule);
  if (!decision.allowed) throw windowRefusal(decision, clock, refusal);
}

export async function changePasswordThrottled(
  db: Db,
  clock: Clock,
  input: {
    userId: string;
    currentPassword?: string | undefined;
    newPassword: string;
    justSignedInWithOneTimePassword?: boolean;
    clientAddress?: string;
  },
): Promise<void> {
  await take(db, clock, {
    key: `password-change:user:${input.userId}`,
    limit: signInAttemptsPerEmail,
    windowMs: signInWindowMs,
  });
  if (input.clientAddress) {
    await take(db, clock, {
      key: `password-change:address:${input.clientAddress}`,
      limit: signInAttemptsPerAddress,
      windowMs: signInWindowMs,
    });
  }
  await changePassword(db, input.userId, input);
}
