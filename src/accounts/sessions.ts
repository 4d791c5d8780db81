// Portal sessions (docs/security.md "The portal"): a random token in an HttpOnly SameSite=Strict
// cookie; only its SHA-256 is stored. Sessions end after 12 idle hours or 7 days, whichever is
// first.
import { and, eq, lt, ne, or } from "drizzle-orm";
import type { Clock } from "../core/clock.ts";
import { newId } from "../core/ids.ts";
import { randomBase64Url, sha256Hex } from "../crypto/tokens.ts";
import { type Db, first } from "../db/store.ts";

export const sessionIdleMs = 12 * 60 * 60 * 1000;
const sessionMaxAgeMs = 7 * 24 * 60 * 60 * 1000;
/** last_seen_at is refreshed at most this often, so reads do not write on every request. */
const touchIntervalMs = 60_000;

export interface PortalPrincipal {
  sessionId: string;
  /** When this session signed in (the one-time-password sign-in that a first change follows). */
  sessionCreatedAt: Date;
  userId: string;
  email: string;
  isOperator: boolean;
  mustChangePassword: boolean;
  serviceAccountId: string;
  /** The user's service account is disabled: read-only portal (docs/decisions.md). */
  accountDisabled: boolean;
}

export async function createSession(
  db: Db,
  clock: Clock,
  userId: string,
): Promise<{ token: string; expiresAt: Date }> {
  const token = randomBase64Url(32);
  const now = clock.now();
  const expiresAt = new Date(now.getTime() + sessionMaxAgeMs);
  const { sessions } = db.t;
  await db.write((tx) =>
    tx.insert(sessions).values({
      id: newId(),
      tokenHash: sha256Hex(token),
      userId,
      createdAt: now,
      lastSeenAt: now,
      expiresAt,
    }),
  );
  return { token, expiresAt };
}

/** The signed-in user for a cookie token, or undefined when unknown, expired or idle too long. */
export async function resolveSession(
  db: Db,
  clock: Clock,
  token: string,
): Promise<PortalPrincipal | undefined> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
  const { serviceAccounts, sessions, users } = db.t;
  const row = await first(
    db
      .select({
        sessionId: sessions.id,
        sessionCreatedAt: sessions.createdAt,
        lastSeenAt: sessions.lastSeenAt,
        expiresAt: sessions.expiresAt,
        userId: users.id,
        email: users.email,
        isOperator: users.isOperator,
        mustChangePassword: users.mustChangePassword,
        serviceAccountId: users.serviceAccountId,
        accountDisabled: serviceAccounts.disabled,
      })
      .from(sessions)
      .innerJoin(users, eq(users.id, sessions.userId))
      .innerJoin(serviceAccounts, eq(serviceAccounts.id, users.serviceAccountId))
      .where(eq(sessions.tokenHash, sha256Hex(token))),
  );
  if (!row) return undefined;
  const now = clock.now().getTime();
  if (row.expiresAt.getTime() <= now || row.lastSeenAt.getTime() + sessionIdleMs <= now) {
    await deleteSession(db, row.sessionId);
    return undefined;
  }
  if (now - row.lastSeenAt.getTime() >= touchIntervalMs) {
    await db.write((tx) =>
      tx
        .update(sessions)
        .set({ lastSeenAt: new Date(now) })
        .where(eq(sessions.id, row.sessionId)),
    );
  }
  const { lastSeenAt: _seen, expiresAt: _expires, ...principal } = row;
  return principal;
}

export async function deleteSession(db: Db, sessionId: string): Promise<void> {
  const { sessions } = db.t;
  await db.write((tx) => tx.delete(sessions).where(eq(sessions.id, sessionId)));
}

/** Ends every session of a user except, optionally, the current one (after a password change). */
export async function deleteUserSessions(
  db: Db,
  userId: string,
  keepSessionId?: string,
): Promise<void> {
  const { sessions } = db.t;
  await db.write((tx) =>
    tx
      .delete(sessions)
      .where(
        keepSessionId === undefined
          ? eq(sessions.userId, userId)
          : and(eq(sessions.userId, userId), ne(sessions.id, keepSessionId)),
      ),
  );
}

/** Removes expired and idle sessions (called by the retention job). */
export async function pruneSessions(db: Db, clock: Clock): Promise<void> {
  const now = clock.now().getTime();
  const { sessions } = db.t;
  await db.write((tx) =>
    tx
      .delete(sessions)
      .where(
        or(
          lt(sessions.expiresAt, new Date(now)),
          lt(sessions.lastSeenAt, new Date(now - sessionIdleMs)),
        ),
      ),
  );
}
