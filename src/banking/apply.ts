// Change detection (spec 6): one connection's snapshot is written inside the caller's
// transaction, and the events describing what changed are recorded in that same transaction
// after the data (transactional outbox): data and events commit together or not at all.
// - account.transactions.available: once per account that stored transaction ids it had never
//   seen; new_count counts those. A booked row that replaces a pending one has an id the
//   receiver has never seen (and pending rows are not served by default), so it counts and the
//   two are linked (pending_transaction_id, booked_transaction_id); a pending row booked within
//   the same read is never served and does not count.
// Transactions are matched to stored rows on the provider's id for the sandbox bank and import
// files (stable keys), and by identity.ts for real banks, whose ids are hints
// (write-matched.ts; docs/providers.md "One transaction, one id").
// - account.balance.updated: when current, available or currency differ from the stored ones;
//   fetched_at is the stored balances.fetched_at rendered with toISOString().
// - connection.status.changed: when the status moved (see status.ts).
import { eq, sql } from "drizzle-orm";
import { activateIfRealBankAndBilling } from "../accounts/activation.ts";
import type { Clock } from "../core/clock.ts";
import { newId } from "../core/ids.ts";
import { chunks } from "../db/chunks.ts";
import type { Row } from "../db/schema.ts";
import { type Db, first } from "../db/store.ts";
import { type AccountEventInput, recordAccountEvents } from "../webhooks/events/write.ts";
import { providersWithUnstableIds } from "./identity.ts";
import type {
  AccountRecord,
  BalanceRecord,
  ConnectionSnapshot,
  TransactionRecord,
} from "./model.ts";
import { announceConnectionStatus, type ConnectionRow, writeConnectionStatus } from "./status.ts";
import {
  comparedFields,
  insertWithLinks,
  type NewTransactionRow,
  newTransactionRow,
  type TransactionRow,
} from "./transaction-rows.ts";
import { writeMatchedTransactions } from "./write-matched.ts";

export interface AccountChange {
  accountId: string;
  externalId: string;
  created: boolean;
  balanceChanged: boolean;
  newTransactions: number;
  updatedTransactions: number;
}

export interface ApplyResult {
  statusChanged: boolean;
  accounts: AccountChange[];
  newTransactions: number;
  eventsRaised: number;
}

type BankAccountRow = Row<"bankAccounts">;

async function upsertAccount(
  tx: Db,
  now: Date,
  connection: ConnectionRow,
  existing: BankAccountRow | undefined,
  record: AccountRecord,
): Promise<{ id: string; created: boolean }> {
  const { bankAccounts } = tx.t;
  const fields = {
    name: record.name,
    type: record.type,
    currency: record.currency,
    iban: record.iban,
    mask: record.mask,
    institution: connection.institution,
  };
  if (!existing) {
    const id = newId();
    await tx.insert(bankAccounts).values({
      id,
      connectionId: connection.id,
      serviceAccountId: connection.serviceAccountId,
      externalId: record.externalId,
      ...fields,
      createdAt: now,
      updatedAt: now,
    });
    return { id, created: true };
  }
  const changed = (Object.keys(fields) as (keyof typeof fields)[]).some(
    (key) => existing[key] !== fields[key],
  );
  if (changed) {
    await tx
      .update(bankAccounts)
      .set({ ...fields, updatedAt: now })
      .where(eq(bankAccounts.id, existing.id));
  }
  return { id: existing.id, created: false };
}

/** Stores the balance when it differs from the stored one; returns whether it did. */
async function writeBalance(
  tx: Db,
  accountId: string,
  record: BalanceRecord,
  fetchedAt: Date,
): Promise<boolean> {
  const { balances } = tx.t;
  const stored = await first(tx.select().from(balances).where(eq(balances.accountId, accountId)));
  if (
    stored &&
    stored.current === record.current &&
    stored.available === record.available &&
    stored.currency === record.currency
  ) {
    return false;
  }
  const values = {
    current: record.current,
    available: record.available,
    currency: record.currency,
    asOf: record.asOf,
    fetchedAt,
  };
  await tx
    .insert(balances)
    .values({ accountId, ...values })
    .onConflictDoUpdate({ target: balances.accountId, set: values });
  return true;
}

/**
 * The account's stored rows with these stable ids (at most a chunk of them), read through
 * transactions_external_unique. As one row value: with `account_id = ? AND external_id IN (…)`
 * SQLite's planner (which has no statistics) took the primary key's `account_id` prefix and read
 * the account's whole history for every chunk, so a sync's cost grew with the account's age, and
 * PostgreSQL's did the same while its statistics lagged behind a growing account. PostgreSQL
 * takes the ids as one array: over a `VALUES` list of 1,000 parameters the same row value cost
 * it 12-20 ms a chunk of 500 against 2.5-5 ms (BENCHMARKS.md, "A sync's lookups by id").
 */
export function transactionsByExternalIdQuery(tx: Db, accountId: string, externalIds: string[]) {
  const { transactions } = tx.t;
  const key = sql`(${transactions.accountId}, ${transactions.externalId})`;
  const named =
    tx.engine === "postgres"
      ? sql`${key} IN (SELECT ${accountId}::text, unnest(${sql.param(externalIds)}::text[]))`
      : sql`${key} IN (VALUES ${sql.join(
          externalIds.map((externalId) => sql`(${accountId}, ${externalId})`),
          sql`, `,
        )})`;
  return tx.select().from(transactions).where(named);
}

async function loadByExternalId(
  tx: Db,
  accountId: string,
  externalIds: string[],
): Promise<Map<string, TransactionRow>> {
  const found = new Map<string, TransactionRow>();
  for (const part of chunks([...new Set(externalIds)])) {
    const rows = await transactionsByExternalIdQuery(tx, accountId, part);
    for (const row of rows) found.set(row.externalId, row);
  }
  return found;
}

/** The sandbox bank and import files always name their rows (read.ts and the import check). */
function withStableIds(
  records: TransactionRecord[],
): (TransactionRecord & { externalId: string })[] {
  return records.map((record) => {
    if (record.externalId === null) throw new Error("a transaction without its stable id");
    return record as TransactionRecord & { externalId: string };
  });
}

/**
 * Upserts transactions on their stable provider id. Returns how many ids were new, not
 * counting a booked row that replaces a pending row already known (the same transaction).
 */
async function writeTransactions(
  tx: Db,
  now: Date,
  accountId: string,
  records: (TransactionRecord & { externalId: string })[],
): Promise<{ newCount: number; updated: number }> {
  const { transactions } = tx.t;
  // Pending rows first, so a booked row arriving with its pending row in one read links to it.
  const ordered = [
    ...records.filter((r) => r.status === "pending"),
    ...records.filter((r) => r.status !== "pending"),
  ];
  const known = await loadByExternalId(tx, accountId, [
    ...ordered.map((r) => r.externalId),
    ...ordered.flatMap((r) => (r.pendingExternalId ? [r.pendingExternalId] : [])),
  ]);
  const inserts: NewTransactionRow[] = [];
  const insertedNow = new Set<string>();
  const links: { pendingId: string; bookedId: string }[] = [];
  let newCount = 0;
  let updated = 0;
  for (const record of ordered) {
    const existing = known.get(record.externalId);
    if (existing) {
      const changes = comparedFields.filter((key) => existing[key] !== record[key]);
      if (changes.length > 0) {
        await tx
          .update(transactions)
          .set({ ...Object.fromEntries(changes.map((key) => [key, record[key]])), updatedAt: now })
          .where(eq(transactions.id, existing.id));
        Object.assign(existing, Object.fromEntries(changes.map((key) => [key, record[key]])));
        updated++;
      }
      continue;
    }
    const pending = record.pendingExternalId ? known.get(record.pendingExternalId) : undefined;
    const replaces = pending?.status === "pending" ? pending : undefined;
    const row = newTransactionRow({
      id: newId(),
      accountId,
      externalId: record.externalId,
      record,
      pendingTransactionId: replaces?.id ?? null,
      now,
    });
    inserts.push(row);
    insertedNow.add(row.id);
    known.set(record.externalId, { ...row, json: "" });
    // Every new id is news to the receiver, a booked row that replaces a pending one included:
    // receivers de-duplicate on the id, and pending rows are left out of pages by default.
    newCount++;
    if (replaces) {
      replaces.bookedTransactionId = row.id;
      links.push({ pendingId: replaces.id, bookedId: row.id });
      // A pending row seen and booked within this same read is never served: not news.
      if (insertedNow.has(replaces.id)) newCount--;
    }
  }
  await insertWithLinks(tx, now, inserts, links);
  return { newCount, updated };
}

/**
 * Writes what one read of a connection found and records the events it causes, all inside
 * `tx`. `fetchedAt` is when the read ran: it becomes balances.fetched_at and the events'
 * fetched_at. Pass `announceStatus` for a connection created in this transaction, so its first
 * status is announced too.
 */
export async function applyConnectionSnapshot(
  tx: Db,
  clock: Clock,
  connection: ConnectionRow,
  snapshot: ConnectionSnapshot,
  options: { fetchedAt: Date; announceStatus?: boolean },
): Promise<ApplyResult> {
  const { fetchedAt } = options;
  const now = clock.now();
  // Callers check that account and transaction ids are unique within the snapshot.
  const accounts = snapshot.accounts ?? [];

  // 1. Data.
  const { bankAccounts } = tx.t;
  const storedAccounts = new Map(
    (await tx.select().from(bankAccounts).where(eq(bankAccounts.connectionId, connection.id))).map(
      (row) => [row.externalId, row],
    ),
  );
  const changes: AccountChange[] = [];
  for (const snap of accounts) {
    const { id, created } = await upsertAccount(
      tx,
      now,
      connection,
      storedAccounts.get(snap.account.externalId),
      snap.account,
    );
    const balanceChanged = snap.balance
      ? await writeBalance(tx, id, snap.balance, fetchedAt)
      : false;
    // Real banks' ids are hints (identity.ts); the sandbox bank's and import files' are keys.
    const written = providersWithUnstableIds.has(connection.provider)
      ? await writeMatchedTransactions(tx, now, id, snap.transactions, snapshot.window?.from)
      : await writeTransactions(tx, now, id, withStableIds(snap.transactions));
    changes.push({
      accountId: id,
      externalId: snap.account.externalId,
      created,
      balanceChanged,
      newTransactions: written.newCount,
      updatedTransactions: written.updated,
    });
  }
  if (snapshot.notice !== undefined && snapshot.notice !== connection.notice) {
    await tx
      .update(tx.t.connections)
      .set({ notice: snapshot.notice })
      .where(eq(tx.t.connections.id, connection.id));
  }
  const statusMoved = await writeConnectionStatus(
    tx,
    clock,
    connection,
    snapshot.status,
    snapshot.error ?? null,
  );
  // A real bank that became linked (by its link flow, a renewal or the first sync after a
  // SimpleFIN claim) on an account whose billing is set up: the account goes active (spec 3).
  if (statusMoved && snapshot.status === "linked") {
    await activateIfRealBankAndBilling(tx, clock, connection.serviceAccountId);
  }

  // 2. Events, in the same transaction: a failure here rolls the data back with them.
  let eventsRaised = 0;
  if (statusMoved || options.announceStatus) {
    await announceConnectionStatus(tx, clock, { ...connection, status: snapshot.status });
    eventsRaised++;
  }
  const at = fetchedAt.toISOString();
  const serviceAccountId = connection.serviceAccountId;
  const accountEvents: AccountEventInput[] = [];
  for (const change of changes) {
    if (change.newTransactions > 0) {
      accountEvents.push({
        serviceAccountId,
        type: "account.transactions.available",
        data: { account_id: change.accountId, fetched_at: at, new_count: change.newTransactions },
      });
    }
    if (change.balanceChanged) {
      accountEvents.push({
        serviceAccountId,
        type: "account.balance.updated",
        data: { account_id: change.accountId, fetched_at: at },
      });
    }
  }
  await recordAccountEvents(tx, clock, accountEvents);
  eventsRaised += accountEvents.length;
  return {
    statusChanged: statusMoved || Boolean(options.announceStatus),
    accounts: changes,
    newTransactions: changes.reduce((sum, c) => sum + c.newTransactions, 0),
    eventsRaised,
  };
}
