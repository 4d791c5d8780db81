// Connection status moves (spec 3 "Connection", spec 6): every status a connection enters is
// announced once with a connection.status.changed event carrying every account it holds;
// staying in the same status announces nothing.
import { asc, eq, sql } from "drizzle-orm";
import type { Clock } from "../clock.ts";
import type { DbOrTx } from "../db/open.ts";
import { bankAccounts, type ConnectionStatus, connections } from "../db/schema.ts";
import { recordAccountEvent } from "../webhooks/events.ts";

export type ConnectionRow = typeof connections.$inferSelect;

export function connectionAccountIds(tx: DbOrTx, connectionId: string): string[] {
  return (
    tx
      .select({ id: bankAccounts.id })
      .from(bankAccounts)
      .where(eq(bankAccounts.connectionId, connectionId))
      // Creation order; rowid orders accounts created in the same millisecond.
      .orderBy(asc(bankAccounts.createdAt), asc(sql`rowid`))
      .all()
      .map((row) => row.id)
  );
}

/** Records connection.status.changed for the connection's current status and accounts. */
export function announceConnectionStatus(
  tx: DbOrTx,
  clock: Clock,
  connection: { id: string; serviceAccountId: string; status: ConnectionStatus },
): void {
  recordAccountEvent(tx, clock, {
    serviceAccountId: connection.serviceAccountId,
    type: "connection.status.changed",
    data: {
      connection_id: connection.id,
      status: connection.status,
      account_ids: connectionAccountIds(tx, connection.id),
    },
  });
}

/**
 * Writes the connection's status (and the operator-facing message for `error`) without
 * announcing it; returns whether the status moved, so the caller announces it once its other
 * writes are done.
 */
export function writeConnectionStatus(
  tx: DbOrTx,
  clock: Clock,
  connection: ConnectionRow,
  status: ConnectionStatus,
  error: string | null = null,
): boolean {
  const message = status === "error" ? error : null;
  if (connection.status === status && connection.error === message) return false;
  tx.update(connections)
    .set({ status, error: message, updatedAt: clock.now() })
    .where(eq(connections.id, connection.id))
    .run();
  return connection.status !== status;
}

/** Moves a connection to `status` and announces it when the status actually moved. */
export function moveConnectionStatus(
  tx: DbOrTx,
  clock: Clock,
  connection: ConnectionRow,
  status: ConnectionStatus,
  error: string | null = null,
): boolean {
  const moved = writeConnectionStatus(tx, clock, connection, status, error);
  if (moved) announceConnectionStatus(tx, clock, { ...connection, status });
  return moved;
}
