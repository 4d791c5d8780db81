// Limits on bank links (spec 8 "Limits"; docs/decisions.md "Connection and link-attempt
// limits"): an account holds at most `maxActiveConnections` connections that are not
// `rejected` or `expired`, starts at most `linkAttemptsPerHour` link attempts an hour (each one
// makes the server call a provider, for SimpleFIN a host of the user's choosing), and link
// attempts that never linked are removed after `abandonedLinkMs` by the retention job.
import { and, count, eq, inArray, isNull, lt, notExists, notInArray } from "drizzle-orm";
import type { Clock } from "../core/clock.ts";
import { ApiError } from "../core/errors.ts";
import { type Db, first } from "../db/store.ts";
import { enforceWindow } from "../limits/sliding-window.ts";

export const maxActiveConnections = 10;
export const linkAttemptsPerHour = 10;
export const abandonedLinkMs = 24 * 60 * 60 * 1000;
/** Statuses that no longer count toward the limit: the bank gives no data through them. */
const inactiveStatuses = ["rejected", "expired"] as const;
const realBanks = ["enable_banking", "simplefin"] as const;

/** Refuses a new connection (409 limit_exceeded) when the account already holds the most. */
export async function assertConnectionRoom(db: Db, serviceAccountId: string): Promise<void> {
  const { connections } = db.t;
  const held =
    (
      await first(
        db
          .select({ n: count() })
          .from(connections)
          .where(
            and(
              eq(connections.serviceAccountId, serviceAccountId),
              notInArray(connections.status, [...inactiveStatuses]),
            ),
          ),
      )
    )?.n ?? 0;
  if (held >= maxActiveConnections)
    throw new ApiError(
      "limit_exceeded",
      `This account already has ${maxActiveConnections} bank connections that are not rejected or expired, the most allowed. Remove one to connect another.`,
    );
}

/** Counts one link attempt of the account, or throws 429 rate_limited with Retry-After. */
export function takeLinkAttempt(db: Db, clock: Clock, serviceAccountId: string): Promise<void> {
  return enforceWindow(
    db,
    clock,
    {
      key: `bank-link-attempts:${serviceAccountId}`,
      limit: linkAttemptsPerHour,
      windowMs: 60 * 60 * 1000,
    },
    `This account started ${linkAttemptsPerHour} bank links within the last hour, the most allowed`,
  );
}

/**
 * Removes real-bank link attempts that never linked and are older than a day: no data was ever
 * read (last_synced_at null), no account stored, and no provider secret held (a claimed
 * SimpleFIN access whose first read failed is kept: the next sync completes it).
 */
export async function pruneAbandonedLinks(db: Db, clock: Clock): Promise<number> {
  const cutoff = new Date(clock.now().getTime() - abandonedLinkMs);
  return db.write(async (tx) => {
    const { bankAccounts, connections } = tx.t;
    const removed = await tx
      .delete(connections)
      .where(
        and(
          inArray(connections.provider, [...realBanks]),
          lt(connections.createdAt, cutoff),
          notInArray(connections.status, ["linked"]),
          isNull(connections.lastSyncedAt),
          isNull(connections.providerSecret),
          notExists(
            tx
              .select({ id: bankAccounts.id })
              .from(bankAccounts)
              .where(eq(bankAccounts.connectionId, connections.id)),
          ),
        ),
      )
      .returning({ id: connections.id });
    return removed.length;
  });
}
