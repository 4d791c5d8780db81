// Operator ingest: upserts connections, accounts, balances and transactions from one
// document, with the events they cause written in the same transaction as the data they describe.
// The whole document is validated first (an invalid one is refused whole, nothing written); it
// is then applied in batches of accounts, each batch one short transaction, so the write lock is
// never held for long while a server delivers and syncs next to the import. Idempotent on the
// operator's ids: the same document again writes nothing and raises no event. A crash in the
// middle leaves the batches before it applied (data and their events together); running the same
// import again completes it, including the announcement of a connection it created.
import { and, eq } from "drizzle-orm";
import type { Clock } from "../../core/clock.ts";
import { newId } from "../../core/ids.ts";
import { type Db, first } from "../../db/store.ts";
import type { OutboxSignal } from "../../webhooks/events/outbox-signal.ts";
import { type AccountChange, applyConnectionSnapshot } from "../apply.ts";
import { assertServiceAccount } from "../connections.ts";
import type { AccountSnapshot } from "../model.ts";
import type { ConnectionRow } from "../status.ts";
import { type ImportedConnection, transformImport } from "./transform.ts";
import { validateImportDocument } from "./validate.ts";

export interface ImportDeps {
  db: Db;
  clock: Clock;
  /** Told after a batch raised events, so the dispatcher sends them at once. */
  outbox: Pick<OutboxSignal, "notify">;
}

/** A batch holds at most this many accounts ... */
export const importBatchAccounts = 200;
/** ... and stops growing once it holds this many transactions. */
const importBatchTransactions = 5_000;

/**
 * Marks a connection created by an import that has not announced it yet (its first batch is in,
 * its last is not): the batch that completes it announces its status, also on a re-run.
 */
const pendingAnnouncement = "pending_announcement";

export interface ImportResult {
  serviceAccountId: string;
  connections: {
    id: string;
    externalId: string;
    created: boolean;
    status: ConnectionRow["status"];
    statusChanged: boolean;
    accounts: AccountChange[];
  }[];
  newTransactions: number;
  eventsRaised: number;
}

export interface ImportOptions {
  /** Called after each batch with the accounts applied so far and in all (progress on a TTY). */
  onProgress?: (done: number, total: number) => void;
}

/** Accounts split into batches (a connection without accounts is one empty batch). */
function batchAccounts(accounts: AccountSnapshot[]): AccountSnapshot[][] {
  const batches: AccountSnapshot[][] = [[]];
  let transactions = 0;
  for (const account of accounts) {
    let current = batches.at(-1) as AccountSnapshot[];
    if (
      current.length >= importBatchAccounts ||
      (current.length > 0 && transactions >= importBatchTransactions)
    ) {
      current = [];
      batches.push(current);
      transactions = 0;
    }
    current.push(account);
    transactions += account.transactions.length;
  }
  return batches;
}

async function findOrCreateConnection(
  tx: Db,
  serviceAccountId: string,
  item: ImportedConnection,
  at: Date,
  announceLater: boolean,
): Promise<{ row: ConnectionRow; created: boolean }> {
  const { connections } = tx.t;
  const found = await first(
    tx
      .select()
      .from(connections)
      .where(
        and(
          eq(connections.serviceAccountId, serviceAccountId),
          eq(connections.provider, "import"),
          eq(connections.externalId, item.externalId),
        ),
      ),
  );
  if (found) {
    if (found.institution === item.institution) return { row: found, created: false };
    await tx
      .update(connections)
      .set({ institution: item.institution, updatedAt: at })
      .where(eq(connections.id, found.id));
    return { row: { ...found, institution: item.institution }, created: false };
  }
  const row: ConnectionRow = {
    id: newId(),
    serviceAccountId,
    provider: "import",
    externalId: item.externalId,
    institution: item.institution,
    status: item.status,
    error: null,
    providerState: JSON.stringify(announceLater ? { [pendingAnnouncement]: true } : {}),
    createdAt: at,
    updatedAt: at,
    lastSyncedAt: null,
    syncLeaseRunId: null,
    syncLeaseExpiresAt: null,
    consentExpiresAt: null,
    providerSecret: null,
    notice: null,
    consecutiveFailures: 0,
    nextPullAt: null,
    consentWarned7dAt: null,
    consentWarned1dAt: null,
  };
  await tx.insert(connections).values(row);
  return { row, created: true };
}

function awaitsAnnouncement(row: ConnectionRow): boolean {
  try {
    return (JSON.parse(row.providerState) as Record<string, unknown>)[pendingAnnouncement] === true;
  } catch {
    return false;
  }
}

/**
 * Imports a parsed JSON document for a service account. Throws ImportRejected (every problem,
 * nothing written) for an invalid document and ApiError not_found for an unknown account.
 */
export async function importBankData(
  deps: ImportDeps,
  serviceAccountId: string,
  input: unknown,
  options: ImportOptions = {},
): Promise<ImportResult> {
  const { db, clock } = deps;
  await assertServiceAccount(db, serviceAccountId);
  const imported = transformImport(validateImportDocument(input));
  const total = imported.reduce((sum, item) => sum + (item.snapshot.accounts?.length ?? 0), 0);
  let done = 0;
  const fetchedAt = clock.now();
  const result: ImportResult = {
    serviceAccountId,
    connections: [],
    newTransactions: 0,
    eventsRaised: 0,
  };
  for (const item of imported) {
    const batches = batchAccounts(item.snapshot.accounts ?? []);
    const summary = {
      id: "",
      externalId: item.externalId,
      created: false,
      status: item.status,
      statusChanged: false,
      accounts: [] as AccountChange[],
    };
    for (const [index, accounts] of batches.entries()) {
      const last = index === batches.length - 1;
      const applied = await db.write(async (tx) => {
        const { connections } = tx.t;
        const { row, created } = await findOrCreateConnection(
          tx,
          serviceAccountId,
          item,
          fetchedAt,
          !last,
        );
        const announce = last && (created || awaitsAnnouncement(row));
        const outcome = await applyConnectionSnapshot(
          tx,
          clock,
          row,
          // The status moves with the last batch, once every account of the connection is in.
          last
            ? { ...item.snapshot, accounts }
            : { accounts, status: row.status, error: row.error },
          { fetchedAt, announceStatus: announce },
        );
        const changedData = outcome.accounts.some(
          (a) =>
            a.created || a.balanceChanged || a.newTransactions > 0 || a.updatedTransactions > 0,
        );
        const finished = last && awaitsAnnouncement(row);
        if (created || changedData || finished) {
          await tx
            .update(connections)
            .set({
              ...(created || changedData ? { lastSyncedAt: fetchedAt } : {}),
              ...(finished ? { providerState: "{}" } : {}),
            })
            .where(eq(connections.id, row.id));
        }
        return { row, created, outcome };
      });
      if (applied.outcome.eventsRaised > 0) deps.outbox.notify();
      summary.id = applied.row.id;
      if (index === 0) summary.created = applied.created;
      if (last) summary.statusChanged = applied.outcome.statusChanged;
      summary.accounts.push(...applied.outcome.accounts);
      result.newTransactions += applied.outcome.newTransactions;
      result.eventsRaised += applied.outcome.eventsRaised;
      done += accounts.length;
      options.onProgress?.(done, total);
    }
    result.connections.push(summary);
  }
  return result;
}
