// Connections as operators see them (CLI, later the portal): status, sync state, accounts.
import { asc, eq } from "drizzle-orm";
import { ApiError } from "../core/errors.ts";
import { type Db, first } from "../db/store.ts";
import type { ConnectionRow } from "./status.ts";

export interface ConnectionView {
  id: string;
  serviceAccountId: string;
  provider: ConnectionRow["provider"];
  externalId: string;
  institution: string;
  status: ConnectionRow["status"];
  error: string | null;
  createdAt: string;
  lastSyncedAt: string | null;
  accounts: { id: string; externalId: string; name: string; type: string; currency: string }[];
}

export async function getConnection(db: Db, connectionId: string): Promise<ConnectionRow> {
  const { connections } = db.t;
  const row = await first(db.select().from(connections).where(eq(connections.id, connectionId)));
  if (!row) throw new ApiError("not_found", `No connection ${connectionId}.`);
  return row;
}

export async function assertServiceAccount(db: Db, serviceAccountId: string): Promise<void> {
  const { serviceAccounts } = db.t;
  const found = await first(
    db
      .select({ id: serviceAccounts.id })
      .from(serviceAccounts)
      .where(eq(serviceAccounts.id, serviceAccountId)),
  );
  if (!found) throw new ApiError("not_found", `No service account ${serviceAccountId}.`);
}

export async function viewConnection(db: Db, connectionId: string): Promise<ConnectionView> {
  const row = await getConnection(db, connectionId);
  const { bankAccounts } = db.t;
  const accounts = await db
    .select({
      id: bankAccounts.id,
      externalId: bankAccounts.externalId,
      name: bankAccounts.name,
      type: bankAccounts.type,
      currency: bankAccounts.currency,
    })
    .from(bankAccounts)
    .where(eq(bankAccounts.connectionId, connectionId))
    // Creation order: ids are time-ordered (v7), so they order accounts of the same millisecond.
    .orderBy(asc(bankAccounts.createdAt), asc(bankAccounts.id));
  return {
    id: row.id,
    serviceAccountId: row.serviceAccountId,
    provider: row.provider,
    externalId: row.externalId,
    institution: row.institution,
    status: row.status,
    error: row.error,
    createdAt: row.createdAt.toISOString(),
    lastSyncedAt: row.lastSyncedAt?.toISOString() ?? null,
    accounts,
  };
}
