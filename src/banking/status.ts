// Connection status moves (spec 3 "Connection", spec 6): every status a connection enters is
// announced once with a connection.status.changed event carrying every account it holds;
// staying in the same status announces nothing.
import { asc, eq } from "drizzle-orm";
import type { Clock } from "../core/clock.ts";
import type { ConnectionStatus, Row } from "../db/schema.ts";
import type { Db } from "../db/store.ts";
import { recordAccountEvent } from "../webhooks/events/write.ts";
import { withoutUrlPaths } from "./notice.ts";

export type ConnectionRow = Row<"connections">;

async function connectionAccountIds(tx: Db, connectionId: string): Promise<string[]> {
  const { bankAccounts } = tx.t;
  const rows = await tx
    .select({ id: bankAccounts.id })
    .from(bankAccounts)
    .where(eq(bankAccounts.connectionId, connectionId))
    // Creation order: ids are time-ordered (v7), so they order accounts of the same millisecond.
    .orderBy(asc(bankAccounts.createdAt), asc(bankAccounts.id));
  return rows.map((row) => row.id);
}

/** Records connection.status.changed for the connection's current status and accounts. */
export async function announceConnectionStatus(
  tx: Db,
  clock: Clock,
  connection: { id: string; serviceAccountId: string; status: ConnectionStatus },
): Promise<void> {
  await recordAccountEvent(tx, clock, {
    serviceAccountId: connection.serviceAccountId,
    type: "connection.status.changed",
    data: {
      connection_id: connection.id,
      status: connection.status,
      account_ids: await connectionAccountIds(tx, connection.id),
    },
  });
}

/**
 * Writes the connection's status (and the operator-facing message for `error`) without
 * announcing it; returns whether the status moved, so the caller announces it once its other
 * writes are done.
 */
export async function writeConnectionStatus(
  tx: Db,
  clock: Clock,
  connection: ConnectionRow,
  status: ConnectionStatus,
  error: string | null = null,
): Promise<boolean> {
  // Shown in /v1/connections and the portal: never a URL path or query (it may hold a secret).
  const message = status === "error" && error !== null ? withoutUrlPaths(error) : null;
  if (connection.status === status && connection.error === message) return false;
  const { connections } = tx.t;
  await tx
    .update(connections)
    .set({ status, error: message, updatedAt: clock.now() })
    .where(eq(connections.id, connection.id));
  return connection.status !== status;
}

/** Moves a connection to `status` and announces it when the status actually moved. */
export async function moveConnectionStatus(
  tx: Db,
  clock: Clock,
  connection: ConnectionRow,
  status: ConnectionStatus,
  error: string | null = null,
): Promise<boolean> {
  const moved = await writeConnectionStatus(tx, clock, connection, status, error);
  if (moved) await announceConnectionStatus(tx, clock, { ...connection, status });
  return moved;
}
