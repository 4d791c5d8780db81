// One Svc transaction per real transaction, for providers whose ids cannot be trusted
// (docs/providers.md "One transaction, one id"). Enable Banking documents that transaction_id
// "may change" between reads, banks renumber entry_reference and send placeholders ("0"), and
// two identical coffees carry no id at all; SimpleFIN ids come from the Bridge's scrapers. So a
// provider id is a hint, never a key: each row of an answer is matched to a stored transaction
//   a. under its provider id, when that id is unique in the answer and the stored row has the
//      same content (fingerprint);
//   b. else on its content fingerprint (booking date, amount, currency, normalised counterparty
//      and text), identical rows paired in order (the n-th coffee of the answer is the n-th
//      stored coffee);
//   c. else under its unique provider id when the stored row's content is compatible (same
//      currency, dates within a few days, a shared word in counterparty or text; the same
//      amount unless the row is pending): a bank refining a description keeps the transaction;
//   d. else it is a new transaction.
// A provider id that now names different content is therefore a different transaction: an
// unrelated row is never overwritten. This module is pure; apply.ts reads and writes the rows.
import type { TransactionStatus } from "../db/schema.ts";
import { type ProviderName, realProviderNames } from "./providers/descriptors.ts";

/** Providers whose ids are hints only (real banks); the sandbox bank and import files keep
 * stable ids. */
export const providersWithUnstableIds: ReadonlySet<ProviderName> = new Set(realProviderNames);

/** How far apart two dates of one transaction may be (pending vs booked, refined rows). */
export const sameTransactionDays = 7;

/** What identifies a transaction's content. */
export interface TransactionContent {
  status: TransactionStatus;
  amount: string;
  currency: string;
  bookingDate: string;
  description: string;
  counterpartyName: string | null;
}

export interface IncomingRow extends TransactionContent {
  /** The provider's id for the row, when it gave one. */
  providerId: string | null;
}

export interface StoredRow extends TransactionContent {
  id: string;
  bookedTransactionId: string | null;
  removedAt: Date | null;
}

export type RowMatch =
  | { kind: "stored"; rowId: string; by: "id" | "fingerprint" | "compatible_id" }
  | { kind: "new" };

/** Placeholders banks send where they have no id: "0", "000", "-", "null", "N/A". */
export function isPlaceholderId(id: string): boolean {
  const text = id.trim().toLowerCase();
  return /^[0\W_]*$/.test(text) || ["null", "undefined", "none", "n/a", "na"].includes(text);
}

/** Provider ids that name exactly one row of this answer and are no placeholder. */
export function uniqueProviderIds(rows: readonly { providerId: string | null }[]): Set<string> {
  const counts = new Map<string, number>();
  for (const { providerId } of rows) {
    if (providerId === null || isPlaceholderId(providerId)) continue;
    counts.set(providerId, (counts.get(providerId) ?? 0) + 1);
  }
  return new Set([...counts].filter(([, n]) => n === 1).map(([id]) => id));
}

/** Text as compared: Unicode-normalised, lower case, punctuation and runs of spaces folded. */
function normaliseText(text: string | null): string {
  return (text ?? "")
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

/** The content fingerprint (without status: candidates are filtered on status first). */
export function fingerprint(row: TransactionContent): string {
  return JSON.stringify([
    row.bookingDate,
    row.amount,
    row.currency,
    normaliseText(row.counterpartyName),
    normaliseText(row.description),
  ]);
}

function daysBetween(a: string, b: string): number {
  return Math.abs(Date.parse(`${a}T00:00:00Z`) - Date.parse(`${b}T00:00:00Z`)) / 86_400_000;
}

function compatible(stored: StoredRow, row: IncomingRow): boolean {
  return (
    stored.currency === row.currency &&
    (stored.amount === row.amount || stored.status === "pending") &&
    daysBetween(stored.bookingDate, row.bookingDate) <= sameTransactionDays &&
    similarText(stored, row)
  );
}

/**
 * Matches each incoming row (in answer order) to a stored row or marks it new. `stored` are
 * the account's rows that may be the same transactions, oldest first; `seenUnder` maps a
 * provider id to the stored rows it was seen under, oldest first. A stored row takes at most
 * one incoming row, and only one of its own status.
 */
export function matchRows(
  rows: readonly IncomingRow[],
  stored: readonly StoredRow[],
  seenUnder: ReadonlyMap<string, readonly string[]>,
): RowMatch[] {
  const unique = uniqueProviderIds(rows);
  const byId = new Map(stored.map((row) => [row.id, row]));
  const taken = new Set<string>();
  const result: (RowMatch | undefined)[] = rows.map(() => undefined);
  const take = (index: number, row: StoredRow, by: "id" | "fingerprint" | "compatible_id") => {
    taken.add(row.id);
    result[index] = { kind: "stored", rowId: row.id, by };
  };
  const underId = (row: IncomingRow) =>
    row.providerId !== null && unique.has(row.providerId)
      ? (seenUnder.get(row.providerId) ?? [])
          .map((id) => byId.get(id))
          .filter((s): s is StoredRow => s !== undefined && s.status === row.status)
      : [];

  // a. The unique provider id and the same content.
  rows.forEach((row, index) => {
    const print = fingerprint(row);
    const found = underId(row).find((s) => !taken.has(s.id) && fingerprint(s) === print);
    if (found) take(index, found, "id");
  });
  // b. The same content, identical rows paired in order.
  const waiting = new Map<string, StoredRow[]>();
  for (const s of stored) {
    if (taken.has(s.id)) continue;
    const key = `${s.status}|${fingerprint(s)}`;
    waiting.set(key, [...(waiting.get(key) ?? []), s]);
  }
  rows.forEach((row, index) => {
    if (result[index]) return;
    const queue = waiting.get(`${row.status}|${fingerprint(row)}`);
    const found = queue?.find((s) => !taken.has(s.id));
    if (found) take(index, found, "fingerprint");
  });
  // c. The unique provider id and compatible content (a refined text, a pending amount).
  rows.forEach((row, index) => {
    if (result[index]) return;
    const found = underId(row).find((s) => !taken.has(s.id) && compatible(s, row));
    if (found) take(index, found, "compatible_id");
  });
  return result.map((match) => match ?? { kind: "new" });
}

/** Word tokens of three letters or more (digits are card numbers and dates: left out). */
function words(text: string | null): Set<string> {
  return new Set(
    normaliseText(text)
      .split(" ")
      .filter((w) => w.length >= 3 && !/^\d+$/.test(w)),
  );
}

/** Whether two texts may name the same party: a shared word, or one side says nothing. */
function similarText(a: TransactionContent, b: TransactionContent): boolean {
  const left = words(`${a.counterpartyName ?? ""} ${a.description}`);
  const right = words(`${b.counterpartyName ?? ""} ${b.description}`);
  if (left.size === 0 || right.size === 0) return true;
  for (const w of left) if (right.has(w)) return true;
  return false;
}

/**
 * The pending row a new booked row replaces (docs/providers.md "Pending to booked"): a pending
 * row of the same account that this answer no longer carries, not yet booked, with the same
 * amount and currency, a similar counterparty or text, and a booking date from one day before
 * to `sameTransactionDays` after the pending row's. A pending row seen under the booked row's
 * own provider id is preferred; then the closest date; then the oldest row.
 */
export function pendingReplaced(
  booked: IncomingRow,
  vanished: readonly StoredRow[],
  seenUnderSameId: ReadonlySet<string>,
): StoredRow | undefined {
  const dayMs = 86_400_000;
  const candidates = vanished.filter((p) => {
    if (p.status !== "pending" || p.bookedTransactionId !== null) return false;
    if (p.amount !== booked.amount || p.currency !== booked.currency) return false;
    const diff =
      (Date.parse(`${booked.bookingDate}T00:00:00Z`) - Date.parse(`${p.bookingDate}T00:00:00Z`)) /
      dayMs;
    if (diff < -1 || diff > sameTransactionDays) return false;
    return seenUnderSameId.has(p.id) || similarText(p, booked);
  });
  const ranked = candidates.map((p, order) => ({
    p,
    order,
    sameId: seenUnderSameId.has(p.id) ? 0 : 1,
    days: daysBetween(p.bookingDate, booked.bookingDate),
  }));
  ranked.sort((x, y) => x.sameId - y.sameId || x.days - y.days || x.order - y.order);
  return ranked[0]?.p;
}
