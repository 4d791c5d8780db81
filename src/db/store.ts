// The one door to data (docs/storage.md "The door"). Feature functions receive a
// `Db`, build queries with drizzle's query builder through it, await every query and never
// know which engine answers: embedded SQLite (the default) or PostgreSQL.
//
// Types: the query builder and the tables are typed as drizzle's PostgreSQL ones, whatever the
// engine; at run time a SQLite store hands out its own dialect's builder and tables, which take
// the same calls and give the same JavaScript values (the two schemas are kept equal by
// test/db/schema-parity.test.ts, and every storage suite runs on both engines). PostgreSQL's
// builder has no synchronous `.get()/.all()/.run()`, so the compiler refuses code that would only
// work on SQLite; `Db` exposes only the builder methods both dialects share.
//
// The transaction rule: every write goes through `db.write(async (tx) => ...)`.
// - SQLite: one writer connection; its transactions are serialised by an async mutex, so no
//   statement of other code can slip into an open transaction across an `await`, and a throw
//   anywhere in the callback rolls back everything (BEGIN IMMEDIATE ... COMMIT/ROLLBACK issued
//   by hand: drizzle's bun-sqlite `transaction(async ...)` does not roll back work after an
//   await). Reads outside a transaction use a second, read-only connection (WAL), so a write
//   outside `write()` fails at once. Waiting for another process's write lock never blocks the
//   event loop: the lock is retried asynchronously.
// - PostgreSQL: a bounded pool; each `write()` is a SERIALIZABLE transaction (the guarantees of
//   SQLite's single writer, so feature code is written once), retried a bounded number of times
//   on serialization failures and deadlocks. The callback may therefore run more than once: it
//   must do database work only (no sends, no notifications: do those after `write()` resolves).
// Inside a transaction, `tx.write(...)` joins it, so feature functions compose.
import type { Statement } from "bun:sqlite";
import type { SQL } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import type { Tables } from "./schema.ts";

export type Engine = "sqlite" | "postgres";

type Drizzle = PgDatabase<PgQueryResultHKT, Tables>;

/** The parts of drizzle's query builder that both engines share. */
export type QueryBuilder = Pick<
  Drizzle,
  "select" | "selectDistinct" | "insert" | "update" | "delete" | "$count" | "$with" | "with"
>;

export interface WriteOptions {
  /**
   * PostgreSQL only: `read committed` for hot paths made of single statements that are atomic
   * on their own (claims, counters); the default `serializable` suits everything else.
   */
  isolation?: "serializable" | "read committed";
  /**
   * What the transaction is for, when its write-lock time is worth telling apart (SQLite only:
   * `Database.writeLockStats`); transactions without one are counted as "other".
   */
  purpose?: string;
  /**
   * PostgreSQL only: the work starts every statement of the transaction through `rows()` before
   * its first await and starts none after, so COMMIT is sent right behind them (pipelined with BEGIN and the
   * work's statements: one round trip). A statement that fails aborts the transaction, and the
   * COMMIT behind it then ends in a rollback; the work's own promise carries the error.
   */
  commitWithWork?: boolean;
}

/**
 * Per purpose: how many write transactions held SQLite's write lock, for how long in all (wall
 * time), and the process's CPU time meanwhile (the hold's length where the process has a core to
 * itself; on a shared machine the wall time includes waiting for one), estimated from every
 * eighth transaction of each purpose because reading it costs a system call.
 */
export type WriteLockStats = Record<
  string,
  { transactions: number; heldMs: number; heldCpuMs: number }
>;

export interface Db extends QueryBuilder {
  readonly engine: Engine;
  /** The tables of this engine. */
  readonly t: Tables;
  /** True for the handle a `write()` callback receives. */
  readonly inTransaction: boolean;
  /** Runs `work` in one transaction (or joins the current one); see the rule above. */
  write<T>(work: (tx: Db) => Promise<T>, options?: WriteOptions): Promise<T>;
  /**
   * Rows of a raw query written with drizzle's `sql` tag, for what the builder cannot say. Values
   * come as the driver gives them (a PostgreSQL bigint is a string, a SQLite flag a number):
   * map them explicitly.
   */
  rows<T>(query: SQL): Promise<T[]>;
  /**
   * SQLite only (undefined on PostgreSQL): the statement of this fixed SQL text on this handle's
   * connection, prepared on first use and kept with the connection (in the cache drizzle's
   * queries use too, db/sqlite-statement-cache.ts), for hot paths (claims, outcome batches) where
   * drizzle's building of each statement costs more than the statement itself. Parameters are positional (`?`); values as the driver gives them.
   */
  readonly prepared?: (sqlText: string) => Statement;
  /**
   * PostgreSQL, inside `write()` only (undefined elsewhere): sends COMMIT now, right behind the
   * statements the work has started, so they and COMMIT leave in one write, as
   * `commitWithWork` does for a work's first statements; for a work whose last statements
   * depend on an earlier answer. The work starts no statement after it (refused), and its
   * promise carries any statement's error (the server then ends the transaction in a rollback).
   */
  readonly commitBehind?: () => void;
}

/** An open database: the `Db` of feature code plus what only operations need. */
export interface Database {
  readonly engine: Engine;
  readonly db: Db;
  /** Where the data lives, safe to log: the file path, or the URL without its password. */
  readonly location: string;
  isOpen(): boolean;
  /** Answers when the engine answers (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
  /**
   * A number that moves after every commit, by this process or any other, read cheaply and
   * synchronously through the engine (SQLite: PRAGMA data_version on the read connection, which
   * the writer connection's commits move too). It moves at once with this process's commits and
   * from the next turn of the event loop on with another process's (read once per turn: every
   * request served in a turn was received before it began). Equal numbers mean nothing was
   * committed in between, so a cache keyed on it is never stale. Undefined where no such
   * counter exists (PostgreSQL): callers then read every time.
   */
  readonly changeCounter?: () => number;
  /**
   * A number that moves after every commit by another process (never by this one's), read
   * through the engine each time it is called (SQLite: PRAGMA data_version on the writer
   * connection). Undefined where there is none (PostgreSQL, which notifies instead).
   */
  readonly otherProcessesCounter?: () => number;
  /**
   * SQLite: the write lock's held time since the database was opened (BEGIN IMMEDIATE to
   * COMMIT or ROLLBACK, the work's awaits included), per `WriteOptions.purpose`: the serial part
   * every process on the file shares (BENCHMARKS.md, "Past two cores, on paper").
   */
  readonly writeLockStats?: () => WriteLockStats;
}

/** Thrown by `write()` when another process holds SQLite's write lock for too long. */
export class DatabaseBusyError extends Error {
  override name = "DatabaseBusyError";
}

/** The first row of a query, or undefined: `await first(db.select()...limit(1))`. */
export async function first<T>(rows: PromiseLike<T[]>): Promise<T | undefined> {
  return (await rows)[0];
}
