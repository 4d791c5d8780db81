// The receiver's own SQLite database (bun:sqlite): the durable inbox that is also the event
// de-duplication (spec §4 rule 4), the transactions it stored, de-duplicated on their id
// (rule 5), and where the last read of each account ended.
//
// Why an inbox and not an in-memory queue: the receiver answers 200 before it does the work, so
// Svc will not send the event again. Whatever was acknowledged must survive a crash or restart,
// and work that failed (the API was unreachable) must be tried again. Recording the event and
// checking whether its id was seen is one INSERT, committed before the 200 goes out.
import { Database } from "bun:sqlite";
import type { SvcEvent } from "./verify.ts";

export interface InboxEvent {
  event: SvcEvent;
  attempts: number;
}

export interface ReceiverStore {
  /** Records a verified event; false when its id was recorded before (a retry or a replay). */
  accept(event: SvcEvent, at: number): boolean;
  /** The oldest recorded event whose work is due at `now` and not done yet. */
  nextDue(now: number): InboxEvent | undefined;
  /** When the earliest event waiting for another try is due (undefined: none waits). */
  nextRetryAt(): number | undefined;
  markDone(eventId: string, at: number): void;
  markFailed(eventId: string, error: string, retryAt: number): void;
  /** Stores a transaction once; false when a transaction with its id is already stored. */
  storeTransaction(accountId: string, transaction: { transaction_id: string }, at: number): boolean;
  /** Transactions stored for an account, as received from /v1. */
  transactions(accountId: string): Record<string, unknown>[];
  /** The `to` date (YYYY-MM-DD) of the last complete read of an account's transactions. */
  lastReadTo(accountId: string): string | undefined;
  setLastReadTo(accountId: string, date: string): void;
  /** Forgets done events recorded before `before` (ms); returns how many. */
  pruneEvents(before: number): number;
  close(): void;
}

const schema = `
  CREATE TABLE IF NOT EXISTS inbox (
    event_id TEXT PRIMARY KEY,
    body TEXT NOT NULL,
    received_at INTEGER NOT NULL,
    done_at INTEGER,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    last_error TEXT
  );
  CREATE INDEX IF NOT EXISTS inbox_due ON inbox (done_at, next_attempt_at);
  CREATE TABLE IF NOT EXISTS transactions (
    transaction_id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL,
    body TEXT NOT NULL,
    stored_at INTEGER NOT NULL
  );
  CREATE INDEX IF NOT EXISTS transactions_account ON transactions (account_id);
  CREATE TABLE IF NOT EXISTS read_positions (
    account_id TEXT PRIMARY KEY,
    last_read_to TEXT NOT NULL
  );`;

export function openReceiverStore(path: string): ReceiverStore {
  const db = new Database(path, { create: true, strict: true });
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA busy_timeout = 5000");
  db.exec(schema);
  const insertEvent = db.query(
    "INSERT OR IGNORE INTO inbox (event_id, body, received_at, next_attempt_at) VALUES (?1, ?2, ?3, ?3)",
  );
  const due = db.query<{ body: string; attempts: number }, [number]>(
    "SELECT body, attempts FROM inbox WHERE done_at IS NULL AND next_attempt_at <= ?1 ORDER BY next_attempt_at, received_at LIMIT 1",
  );
  const earliest = db.query<{ at: number | null }, []>(
    "SELECT MIN(next_attempt_at) AS at FROM inbox WHERE done_at IS NULL",
  );
  const done = db.query("UPDATE inbox SET done_at = ?2, last_error = NULL WHERE event_id = ?1");
  const failed = db.query(
    "UPDATE inbox SET attempts = attempts + 1, last_error = ?2, next_attempt_at = ?3 WHERE event_id = ?1",
  );
  const insertTransaction = db.query(
    "INSERT OR IGNORE INTO transactions (transaction_id, account_id, body, stored_at) VALUES (?1, ?2, ?3, ?4)",
  );
  const accountTransactions = db.query<{ body: string }, [string]>(
    "SELECT body FROM transactions WHERE account_id = ?1 ORDER BY stored_at, transaction_id",
  );
  const position = db.query<{ last_read_to: string }, [string]>(
    "SELECT last_read_to FROM read_positions WHERE account_id = ?1",
  );
  const setPosition = db.query(
    "INSERT INTO read_positions (account_id, last_read_to) VALUES (?1, ?2) ON CONFLICT (account_id) DO UPDATE SET last_read_to = excluded.last_read_to",
  );
  const prune = db.query("DELETE FROM inbox WHERE done_at IS NOT NULL AND received_at < ?1");
  return {
    accept: (event, at) => insertEvent.run(event.id, JSON.stringify(event), at).changes === 1,
    nextDue(now) {
      const row = due.get(now);
      return row ? { event: JSON.parse(row.body) as SvcEvent, attempts: row.attempts } : undefined;
    },
    nextRetryAt: () => earliest.get()?.at ?? undefined,
    markDone: (eventId, at) => void done.run(eventId, at),
    markFailed: (eventId, error, retryAt) => void failed.run(eventId, error, retryAt),
    storeTransaction: (accountId, transaction, at) =>
      insertTransaction.run(transaction.transaction_id, accountId, JSON.stringify(transaction), at)
        .changes === 1,
    transactions: (accountId) =>
      accountTransactions.all(accountId).map((row) => JSON.parse(row.body)),
    lastReadTo: (accountId) => position.get(accountId)?.last_read_to,
    setLastReadTo: (accountId, date) => void setPosition.run(accountId, date),
    pruneEvents: (before) => prune.run(before).changes,
    close: () => db.close(),
  };
}
