// An account's connections as operators see them (operator pages): what each
// connection is, its status and sync state, and its bank accounts' ids and names, so an
// operator can find one and remove it. Never balances, account numbers or provider secrets:
// operators see metadata (docs/security.md).

import { ApiError } from "../core/errors.ts";
import { isUuid } from "../core/ids.ts";
import type { Db } from "../db/store.ts";
import { listOwnConnections, type OwnConnectionView } from "./account-connections.ts";
import { getConnection } from "./connections.ts";
import type { ConnectionRow } from "./status.ts";

export interface OperatorConnectionView {
  id: string;
  serviceAccountId: string;
  provider: OwnConnectionView["provider"];
  institution: string;
  status: OwnConnectionView["status"];
  error: string | null;
  notice: string | null;
  createdAt: string;
  lastSyncedAt: string | null;
  consentExpiresAt: string | null;
  lastSync: OwnConnectionView["lastSync"];
  accounts: { id: string; name: string; type: string; currency: string }[];
}

/** Every connection of the account, oldest first; 404 when there is no such account. */
export async function listConnectionsForOperator(
  db: Db,
  serviceAccountId: string,
): Promise<OperatorConnectionView[]> {
  const own = await listOwnConnections(db, serviceAccountId);
  return own.map((c) => ({
    id: c.id,
    serviceAccountId,
    provider: c.provider,
    institution: c.institution,
    status: c.status,
    error: c.error,
    notice: c.notice,
    createdAt: c.createdAt,
    lastSyncedAt: c.lastSyncedAt,
    consentExpiresAt: c.consentExpiresAt,
    lastSync: c.lastSync,
    accounts: c.accounts.map((a) => ({
      id: a.id,
      name: a.name,
      type: a.type,
      currency: a.currency,
    })),
  }));
}

/** Any account's connection by id; anything else (not an id, gone) is 404 not_found. */
export async function requireAnyConnection(db: Db, connectionId: string): Promise<ConnectionRow> {
  if (!isUuid(connectionId)) throw new ApiError("not_found", `No connection ${connectionId}.`);
  return getConnection(db, connectionId);
}
