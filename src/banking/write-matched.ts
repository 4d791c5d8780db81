// Writes one account's transactions from a real bank's answer (Enable Banking, SimpleFIN), whose
// ids are hints (identity.ts): each row is matched to the stored transaction it is, or stored as
// new; a new booked row that replaces a pending row the answer no longer carries is linked to it
// (docs/providers.md "Pending to booked"); a pending row the answer's window no longer carries is
// marked removed (removed_at) and no longer served. Every unique provider id a row came under is
// kept in transaction_provider_ids.
import { and, asc, eq, gte, inArray, sql } from "drizzle-orm";
import { addDays, toDateString } from "../core/dates.ts";
import { newId } from "../core/ids.ts";
import { chunks } from "../db/chunks.ts";
import type { Db } from "../db/store.ts";
import {
  type IncomingRow,
  matchRows,
  pendingReplaced,
  type StoredRow,
  sameTransactionDays,
  uniqueProviderIds,
} from "./identity.ts";
import type { TransactionRecord } from "./model.ts";
import {
  comparedFields,
  insertWithLinks,
  type NewTransactionRow,
  newTransactionRow,
  type TransactionRow,
} from "./transaction-rows.ts";

export interface MatchedWrite {
  newCount: number;
  updated: number;
  removed: number;
}

async function loadSeenUnder(
  tx: Db,
  accountId: string,
  providerIds: string[],
): Promise<Map<string, string[]>> {
  const { transactionProviderIds: ids } = tx.t;
  const seen = new Map<string, string[]>();
  for (const part of chunks(providerIds)) {
    const rows = await tx
      .select({ providerId: ids.providerId, transactionId: ids.transactionId })
      .from(ids)
      .where(and(eq(ids.accountId, accountId), inArray(ids.providerId, part)))
      .orderBy(asc(ids.firstSeenAt), asc(ids.transactionId));
    for (const row of rows)
      seen.set(row.providerId, [...(seen.get(row.providerId) ?? []), row.transactionId]);
  }
  return seen;
}

/**
 * Stored rows by their ids (at most a chunk of them), read through transactions_id_unique; the
 * caller keeps only its account's. By id alone: with `account_id = ? AND id IN (…)` SQLite's
 * planner (no statistics) read the account's whole history instead (apply.ts,
 * transactionsByExternalIdQuery).
 */
export function transactionsByIdQuery(tx: Db, ids: string[]) {
  const { transactions } = tx.t;
  return tx.select().from(transactions).where(inArray(transactions.id, ids));
}

/** The stored rows this answer may name: its dates (and window) widened, and those its ids name. */
async function loadCandidates(
  tx: Db,
  accountId: string,
  records: readonly TransactionRecord[],
  windowFrom: string | null | undefined,
  namedIds: string[],
): Promise<TransactionRow[]> {
  const { transactions } = tx.t;
  const dates = records.map((r) => r.bookingDate);
  if (windowFrom) dates.push(windowFrom);
  const earliest = dates.sort()[0];
  const wholeHistory = windowFrom === null;
  const rows: TransactionRow[] = [];
  if (wholeHistory || earliest) {
    const from = earliest
      ? toDateString(addDays(new Date(`${earliest}T00:00:00Z`), -(sameTransactionDays + 1)))
      : undefined;
    rows.push(
      ...(await tx
        .select()
        .from(transactions)
        .where(
          and(
            eq(transactions.accountId, accountId),
            wholeHistory || !from ? undefined : gte(transactions.bookingDate, from),
          ),
        )
        .orderBy(asc(transactions.createdAt), asc(transactions.id))),
    );
  }
  const have = new Set(rows.map((r) => r.id));
  const missing = [...new Set(namedIds)].filter((id) => !have.has(id));
  for (const part of chunks(missing)) {
    const found = await transactionsByIdQuery(tx, part);
    rows.push(...found.filter((row) => row.accountId === accountId));
  }
  return rows.sort(
    (a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1),
  );
}

const incoming = (record: TransactionRecord): IncomingRow => ({
  providerId: record.externalId,
  status: record.status,
  amount: record.amount,
  currency: record.currency,
  bookingDate: record.bookingDate,
  description: record.description,
  counterpartyName: record.counterpartyName,
});

export async function writeMatchedTransactions(
  tx: Db,
  now: Date,
  accountId: string,
  records: readonly TransactionRecord[],
  windowFrom: string | null | undefined,
): Promise<MatchedWrite> {
  const { transactions, transactionProviderIds } = tx.t;
  const rows = records.map(incoming);
  const unique = uniqueProviderIds(rows);
  const seenUnder = await loadSeenUnder(tx, accountId, [...unique]);
  const stored = await loadCandidates(
    tx,
    accountId,
    records,
    windowFrom,
    [...seenUnder.values()].flat(),
  );
  const storedById = new Map(stored.map((row) => [row.id, row]));
  const matches = matchRows(rows, stored as StoredRow[], seenUnder);
  const taken = new Set(matches.flatMap((m) => (m.kind === "stored" ? [m.rowId] : [])));
  const vanishedPending = stored.filter(
    (row) =>
      row.status === "pending" &&
      row.bookedTransactionId === null &&
      row.removedAt === null &&
      !taken.has(row.id),
  );

  let updated = 0;
  let newCount = 0;
  const inserts: NewTransactionRow[] = [];
  const links: { pendingId: string; bookedId: string }[] = [];
  const rowIdOf: string[] = [];
  for (const [index, match] of matches.entries()) {
    const record = records[index] as TransactionRecord;
    if (match.kind === "stored") {
      const existing = storedById.get(match.rowId) as TransactionRow;
      rowIdOf[index] = existing.id;
      const changes = comparedFields.filter((key) => existing[key] !== record[key]);
      if (changes.length === 0 && existing.removedAt === null) continue;
      const set = Object.fromEntries(changes.map((key) => [key, record[key]]));
      await tx
        .update(transactions)
        .set({ ...set, removedAt: null, updatedAt: now })
        .where(eq(transactions.id, existing.id));
      updated++;
      continue;
    }
    const id = newId();
    rowIdOf[index] = id;
    const sameId = new Set(record.externalId ? (seenUnder.get(record.externalId) ?? []) : []);
    const replaces =
      record.status === "booked"
        ? pendingReplaced(rows[index] as IncomingRow, vanishedPending as StoredRow[], sameId)
        : undefined;
    if (replaces) {
      (replaces as { bookedTransactionId: string | null }).bookedTransactionId = id;
      links.push({ pendingId: replaces.id, bookedId: id });
    }
    // Real banks' ids are hints kept in transaction_provider_ids; the row's own key is its id.
    inserts.push(
      newTransactionRow({
        id,
        accountId,
        externalId: id,
        record,
        pendingTransactionId: replaces?.id ?? null,
        now,
      }),
    );
    // A booked row that replaces a pending one is news too: receivers de-duplicate on the id.
    newCount++;
  }
  await insertWithLinks(tx, now, inserts, links);

  // Pending rows in the window read again that the answer no longer carries (and that did not
  // book): the bank dropped them (an expired card authorisation, a cancelled payment).
  let removed = 0;
  if (windowFrom !== undefined) {
    const linked = new Set(links.map((l) => l.pendingId));
    const gone = vanishedPending.filter(
      (row) => !linked.has(row.id) && (windowFrom === null || row.bookingDate >= windowFrom),
    );
    for (const part of chunks(gone.map((row) => row.id))) {
      await tx
        .update(transactions)
        .set({ removedAt: now, updatedAt: now })
        .where(inArray(transactions.id, part));
    }
    removed = gone.length;
  }

  const seen = records.flatMap((record, index) =>
    record.externalId !== null && unique.has(record.externalId)
      ? [
          {
            accountId,
            providerId: record.externalId,
            transactionId: rowIdOf[index] as string,
            firstSeenAt: now,
            lastSeenAt: now,
          },
        ]
      : [],
  );
  for (const part of chunks(seen)) {
    await tx
      .insert(transactionProviderIds)
      .values(part)
      .onConflictDoUpdate({
        target: [
          transactionProviderIds.accountId,
          transactionProviderIds.providerId,
          transactionProviderIds.transactionId,
        ],
        set: { lastSeenAt: sql`excluded.last_seen_at` },
      });
  }
  return { newCount, updated, removed };
}
