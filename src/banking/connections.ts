// Connections as operators see them (CLI, later the portal): status, sync state, accounts.
import { asc, eq, sql } from "drizzle-orm";
import type { DbOrTx } from "../db/open.ts";
import { bankAccounts, connections, serviceAccounts } from "../db/schema.ts";
import { ApiError } from "../http/errors.ts";
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

export function getConnection(db: DbOrTx, connectionId: string): ConnectionRow {
  const row = db.select().from(connections).where(eq(connections.id, connectionId)).get();
  if (!row) throw new ApiError("not_found", `No connection ${connectionId}.`);
  return row;
}

export function assertServiceAccount(db: DbOrTx, serviceAccountId: string): void {
  const found = db
    .select({ id: serviceAccounts.id })
    .from(serviceAccounts)
    .where(eq(serviceAccounts.id, serviceAccountId))
    .get();
  if (!found) throw new ApiError("not_found", `No service account ${serviceAccountId}.`);
}

export function viewConnection(db: DbOrTx, connectionId: string): ConnectionView {
  const row = getConnection(db, connectionId);
  const accounts = db
    .select({
      id: bankAccounts.id,
      externalId: bankAccounts.externalId,
      name: bankAccounts.name,
      type: bankAccounts.type,
      currency: bankAccounts.currency,
    })
    .from(bankAccounts)
    .where(eq(bankAccounts.connectionId, connectionId))
    .orderBy(asc(bankAccounts.createdAt), asc(sql`rowid`))
    .all();
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
