// A service account's connections as the portal's Connections page shows them: status, the
// accounts each carries with their latest balance, and the last sync run. Every query is
// scoped to the owner, so another account's connection is simply "not found".
import { and, asc, desc, eq, inArray } from "drizzle-orm";
import { ApiError } from "../core/errors.ts";
import { isUuid } from "../core/ids.ts";
import { type Db, first } from "../db/store.ts";
import { assertServiceAccount } from "./connections.ts";
import { pulledProviderNames } from "./providers/descriptors.ts";
import type { ConnectionRow } from "./status.ts";

export interface AccountBalanceView {
  current: string;
  available: string | null;
  currency: string;
  asOf: string;
  fetchedAt: string;
}

export interface OwnConnectionView {
  id: string;
  provider: ConnectionRow["provider"];
  institution: string;
  status: ConnectionRow["status"];
  error: string | null;
  /** The provider's message and what the last sync skipped (src/banking/notice.ts). */
  notice: string | null;
  createdAt: string;
  lastSyncedAt: string | null;
  /** Real banks: when the consent ends (the owner connects again after it). */
  consentExpiresAt: string | null;
  /** Whether "Sync now" can pull from its provider (operator-ingest connections are pushed). */
  pullable: boolean;
  lastSync: {
    trigger: string;
    startedAt: string;
    finishedAt: string | null;
    outcome: "running" | "succeeded" | "failed";
    error: string | null;
    newTransactions: number;
  } | null;
  accounts: {
    id: string;
    name: string;
    type: string;
    currency: string;
    /** Last digits only; the full account number is never shown in the portal. */
    mask: string | null;
    balance: AccountBalanceView | null;
  }[];
}

/** The connection, when it belongs to the service account; otherwise 404 not_found. */
export async function requireOwnConnection(
  db: Db,
  serviceAccountId: string,
  connectionId: string,
): Promise<ConnectionRow> {
  const { connections } = db.t;
  const row =
    isUuid(connectionId) &&
    (await first(
      db
        .select()
        .from(connections)
        .where(
          and(eq(connections.id, connectionId), eq(connections.serviceAccountId, serviceAccountId)),
        ),
    ));
  if (!row) throw new ApiError("not_found", `No connection ${connectionId}.`);
  return row;
}

async function lastRun(db: Db, connectionId: string): Promise<OwnConnectionView["lastSync"]> {
  const { syncRuns } = db.t;
  const run = await first(
    db
      .select()
      .from(syncRuns)
      .where(eq(syncRuns.connectionId, connectionId))
      .orderBy(desc(syncRuns.startedAt), desc(syncRuns.id))
      .limit(1),
  );
  if (!run) return null;
  return {
    trigger: run.trigger,
    startedAt: run.startedAt.toISOString(),
    finishedAt: run.finishedAt?.toISOString() ?? null,
    outcome: run.outcome,
    error: run.error,
    newTransactions: run.newTransactions,
  };
}

/** Every connection of the account, oldest first, with accounts, balances and the last run. */
export async function listOwnConnections(
  db: Db,
  serviceAccountId: string,
): Promise<OwnConnectionView[]> {
  await assertServiceAccount(db, serviceAccountId);
  const { balances, bankAccounts, connections } = db.t;
  // Listing needs only the pulled providers' names, not the registry (nor its secrets).
  const pullable = new Set<string>(pulledProviderNames);
  const rows = await db
    .select()
    .from(connections)
    .where(eq(connections.serviceAccountId, serviceAccountId))
    .orderBy(asc(connections.createdAt), asc(connections.id));
  if (rows.length === 0) return [];
  const accountRows = await db
    .select({ account: bankAccounts, balance: balances })
    .from(bankAccounts)
    .leftJoin(balances, eq(balances.accountId, bankAccounts.id))
    .where(
      inArray(
        bankAccounts.connectionId,
        rows.map((r) => r.id),
      ),
    )
    .orderBy(asc(bankAccounts.createdAt), asc(bankAccounts.id));
  const lastRuns = await Promise.all(rows.map((row) => lastRun(db, row.id)));
  return rows.map((row, index) => ({
    id: row.id,
    provider: row.provider,
    institution: row.institution,
    status: row.status,
    error: row.error,
    notice: row.notice,
    createdAt: row.createdAt.toISOString(),
    lastSyncedAt: row.lastSyncedAt?.toISOString() ?? null,
    consentExpiresAt: row.consentExpiresAt?.toISOString() ?? null,
    pullable: pullable.has(row.provider),
    lastSync: lastRuns[index] ?? null,
    accounts: accountRows
      .filter(({ account }) => account.connectionId === row.id)
      .map(({ account, balance }) => ({
        id: account.id,
        name: account.name,
        type: account.type,
        currency: account.currency,
        mask: account.mask,
        balance: balance
          ? {
              current: balance.current,
              available: balance.available,
              currency: balance.currency,
              asOf: balance.asOf.toISOString(),
              fetchedAt: balance.fetchedAt.toISOString(),
            }
          : null,
      })),
  }));
}
