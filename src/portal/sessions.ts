// Portal sessions (DESIGN.md "Portal"): a random token in an HttpOnly SameSite=Strict cookie;
// only its SHA-256 is stored. Sessions end after 12 idle hours or 7 days, whichever is first.
import { and, eq, lt, or } from "drizzle-orm";
import type { Clock } from "../clock.ts";
import { randomBase64Url, sha256Hex } from "../crypto/tokens.ts";
import type { Db } from "../db/open.ts";
import { serviceAccounts, sessions, users } from "../db/schema.ts";
import { newId } from "../ids.ts";

export const sessionIdleMs = 12 * 60 * 60 * 1000;
export const sessionMaxAgeMs = 7 * 24 * 60 * 60 * 1000;
/** last_seen_at is refreshed at most this often, so reads do not write on every request. */
const touchIntervalMs = 60_000;

export interface PortalPrincipal {
  sessionId: string;
  userId: string;
  email: string;
  isOperator: boolean;
  mustChangePassword: boolean;
  serviceAccountId: string;
}

export function createSession(
  db: Db,
  clock: Clock,
  userId: string,
): { token: string; expiresAt: Date } {
  const token = randomBase64Url(32);
  const now = clock.now();
  const expiresAt = new Date(now.getTime() + sessionMaxAgeMs);
  db.insert(sessions)
    .values({
      id: newId(),
      tokenHash: sha256Hex(token),
      userId,
      createdAt: now,
      lastSeenAt: now,
      expiresAt,
    })
    .run();
  return { token, expiresAt };
}

/** The signed-in user for a cookie token, or undefined when unknown, expired or idle too long. */
export function resolveSession(db: Db, clock: Clock, token: string): PortalPrincipal | undefined {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
  const row = db
    .select({
      sessionId: sessions.id,
      lastSeenAt: sessions.lastSeenAt,
      expiresAt: sessions.expiresAt,
      userId: users.id,
      email: users.email,
      isOperator: users.isOperator,
      mustChangePassword: users.mustChangePassword,
      serviceAccountId: users.serviceAccountId,
    })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .innerJoin(serviceAccounts, eq(serviceAccounts.id, users.serviceAccountId))
    .where(eq(sessions.tokenHash, sha256Hex(token)))
    .get();
  if (!row) return undefined;
  const now = clock.now().getTime();
  if (row.expiresAt.getTime() <= now || row.lastSeenAt.getTime() + sessionIdleMs <= now) {
    db.delete(sessions).where(eq(sessions.id, row.sessionId)).run();
    return undefined;
  }
  if (now - row.lastSeenAt.getTime() >= touchIntervalMs) {
    db.update(sessions)
      .set({ lastSeenAt: new Date(now) })
      .where(eq(sessions.id, row.sessionId))
      .run();
  }
  const { lastSeenAt: _seen, expiresAt: _expires, ...principal } = row;
  return principal;
}

export function deleteSession(db: Db, sessionId: string): void {
  db.delete(sessions).where(eq(sessions.id, sessionId)).run();
}

/** Ends every session of a user except, optionally, the current one (after a password change). */
export function deleteUserSessions(db: Db, userId: string, keepSessionId?: string): void {
  const others = db
    .select({ id: sessions.id })
    .from(sessions)
    .where(eq(sessions.userId, userId))
    .all();
  for (const { id } of others) if (id !== keepSessionId) deleteSession(db, id);
}

/** Removes expired and idle sessions (called by the retention job). */
export function pruneSessions(db: Db, clock: Clock): void {
  const now = clock.now().getTime();
  db.delete(sessions)
    .where(
      or(
        lt(sessions.expiresAt, new Date(now)),
        and(lt(sessions.lastSeenAt, new Date(now - sessionIdleMs))),
      ),
    )
    .run();
}
