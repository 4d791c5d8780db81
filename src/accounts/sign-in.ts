// Portal sign-in with throttling (docs/security.md "The portal"). Attempts are counted
// per e-mail and per client address in the database, so a restart does not reset them.

import { eq } from "drizzle-orm";
import type { Clock } from "../core/clock.ts";
import { ApiError } from "../core/errors.ts";
import type { Db } from "../db/store.ts";
import { consumeLimit } from "../limits/counter.ts";
import { hashPassword, verifyPassword } from "./passwords.ts";
import { emailSchema } from "./service-accounts.ts";
import { findUserByEmail } from "./users.ts";

export const signInWindowMs = 15 * 60 * 1000;
export const signInAttemptsPerEmail = 10;
export const signInAttemptsPerAddress = 100;

// Verifying against a real hash when the e-mail is unknown keeps the answer time the same,
// so sign-in does not reveal which e-mails have accounts.
// The decoy is made once per process by the same `hashPassword` (argon2id at Bun's default cost)
// as every user's hash, so verifying it costs the same.
let decoyHash: Promise<string> | undefined;

/** The hash an unknown e-mail's password is verified against; made once, never matches. */
export function decoyPasswordHash(): Promise<string> {
  decoyHash ??= hashPassword(`decoy ${crypto.randomUUID()} that never matches`);
  return decoyHash;
}

export interface SignInDeps {
  /** Checks a password against a hash (tests count the calls). */
  verify?: (password: string, hash: string) => Promise<boolean>;
}

function throttled(resetAt: Date, clock: Clock): ApiError {
  const seconds = Math.max(1, Math.ceil((resetAt.getTime() - clock.now().getTime()) / 1000));
  return new ApiError(
    "rate_limited",
    `Too many sign-in attempts. Try again in ${Math.ceil(seconds / 60)} minute${seconds > 60 ? "s" : ""}.`,
    { "Retry-After": String(seconds) },
  );
}

export async function signIn(
  db: Db,
  clock: Clock,
  input: { email: string; password: string; clientAddress?: string },
  deps: SignInDeps = {},
): Promise<{ userId: string }> {
  const verify = deps.verify ?? verifyPassword;
  const email = emailSchema.safeParse(input.email);
  const emailKey = email.success ? email.data : input.email.trim().toLowerCase();
  const byEmail = await consumeLimit(db, clock, {
    key: `sign-in:email:${emailKey}`,
    limit: signInAttemptsPerEmail,
    windowMs: signInWindowMs,
  });
  if (!byEmail.allowed) throw throttled(byEmail.resetAt, clock);
  if (input.clientAddress) {
    const byAddress = await consumeLimit(db, clock, {
      key: `sign-in:address:${input.clientAddress}`,
      limit: signInAttemptsPerAddress,
      windowMs: signInWindowMs,
    });
    if (!byAddress.allowed) throw throttled(byAddress.resetAt, clock);
  }
  const user = email.success ? await findUserByEmail(db, email.data) : undefined;
  // One hash verification on every path past the throttle: known e-mail, unknown e-mail, an
  // account without a password yet, or text that is not an e-mail at all.
  const ok = await verify(input.password, user?.passwordHash ?? (await decoyPasswordHash()));
  if (!user?.passwordHash || !ok) {
    throw new ApiError("invalid_credentials", "The e-mail or password is not correct.");
  }
  const { users } = db.t;
  await db.write((tx) =>
    tx.update(users).set({ lastLoginAt: clock.now() }).where(eq(users.id, user.id)),
  );
  return { userId: user.id };
}
