// The embedded engine: SQLite in WAL mode in the data dir (the default; nothing else to run).
// Two connections per process: a writer whose transactions are serialised by an async mutex
// (db/store.ts, "The transaction rule") and a read-only reader for everything outside them.
// Other processes (the CLI next to the server) share the file through SQLite's own locks: when
// one of them holds the write lock, `write()` waits for it asynchronously, so the event loop
// (health checks, reads, deliveries) never stalls behind another process's transaction.

import { Database as SqliteConnection } from "bun:sqlite";
import { AsyncLocalStorage } from "node:async_hooks";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { SQL } from "drizzle-orm";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { makeHandle, transactionHandle } from "./handle.ts";
import { createMutex } from "./mutex.ts";
import * as sqliteTables from "./schema/sqlite.ts";
import type { Tables } from "./schema.ts";
import { withStatementCache } from "./sqlite-statement-cache.ts";
import {
  type Database,
  DatabaseBusyError,
  type Db,
  type WriteLockStats,
  type WriteOptions,
} from "./store.ts";

export interface SqliteDatabase extends Database {
  readonly engine: "sqlite";
  readonly path: string;
  /** The writer connection: only `write()` and maintenance (migrations, backup) use it. */
  readonly writer: SqliteConnection;
  /** The read-only connection behind `db` outside transactions. */
  readonly reader: SqliteConnection;
  /**
   * Runs `work` on the writer connection inside BEGIN IMMEDIATE ... COMMIT, serialised with every
   * `write()` (migrations use it; feature code uses `db.write`).
   */
  exclusive<T>(work: (writer: SqliteConnection) => T | Promise<T>): Promise<T>;
}

export interface SqliteOptions {
  /** How long `write()` waits for another process's write lock before giving up (default 30 s). */
  lockTimeoutMs?: number;
}

const defaultLockTimeoutMs = 30_000;
/** Reads wait (rarely: WAL recovery) at most this long, synchronously, inside SQLite. */
const readerBusyTimeoutMs = 5_000;

/** SQLite's tables under the type every feature function uses (see db/store.ts). */
const tables = sqliteTables as unknown as Tables;

function isBusy(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && code.startsWith("SQLITE_BUSY")) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

function createFileOwnerOnly(path: string): void {
  // Bank data: only the service's own user may read the directory and the file
  // (SQLite gives the -wal and -shm files the database file's permissions).
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  if (!existsSync(path)) writeFileSync(path, "", { mode: 0o600, flag: "wx" });
}

/**
 * The pause between two tries for the write lock another process holds: Bun's shortest timer.
 * A process writing in short transactions (svc import, svc sync) frees the lock often, in gaps a
 * waiter that slept longer missed: with another process committing 2,000 one-event transactions
 * a second, waiting up to 4 ms between tries left the dispatcher's claim at a first-attempt p99
 * of 35-42 ms, every millisecond at 21-24 ms (BENCHMARKS.md). A failed try costs microseconds.
 */
const lockPollMs = 1;

/**
 * Opens (creating if needed) the database file with the pragmas the service relies on: WAL for
 * concurrent readers, foreign keys enforced, synchronous=NORMAL (durable across process crashes).
 */
export function openSqliteDatabase(path: string, options: SqliteOptions = {}): SqliteDatabase {
  if (path === ":memory:") throw new Error("the storage layer needs a database file");
  createFileOwnerOnly(path);
  const writer = new SqliteConnection(path, { create: true, strict: true });
  // The busy timeout first: even switching to WAL needs a lock another process may hold.
  writer.exec(`PRAGMA busy_timeout = ${readerBusyTimeoutMs}`);
  writer.exec("PRAGMA journal_mode = WAL");
  writer.exec("PRAGMA foreign_keys = ON");
  writer.exec("PRAGMA synchronous = NORMAL");
  // From now on the writer never sleeps inside SQLite: write() waits for the lock itself.
  writer.exec("PRAGMA busy_timeout = 0");
  let reader: SqliteConnection;
  try {
    reader = new SqliteConnection(path, { readonly: true, strict: true });
    reader.exec(`PRAGMA busy_timeout = ${readerBusyTimeoutMs}`);
    // SQLite's default page cache (2 MB), not a large one: in WAL mode the reader empties its
    // whole cache whenever another connection has committed (the rate limit's reservations,
    // about once a second per busy account, and any write), and a large cache, freed and filled
    // again, made cursor pages dearer than re-reading pages from the OS (BENCHMARKS.md,
    // "Uncached transactions pages on SQLite").
  } catch (error) {
    writer.close();
    throw error;
  }
  const lockTimeoutMs = options.lockTimeoutMs ?? defaultLockTimeoutMs;
  // Each SQL text compiled once per connection (sqlite-statement-cache.ts), for drizzle's
  // queries and the hot paths' statements of fixed text (Db.prepared) alike.
  const writerStatements = withStatementCache(writer);
  const readerStatements = withStatementCache(reader);
  const writerOrm = drizzle({ client: writerStatements as SqliteConnection });
  const readerOrm = drizzle({ client: readerStatements as SqliteConnection });
  const mutex = createMutex();
  // Which write() the running code is inside of: a store-level write() from inside one would
  // wait for its own mutex forever; it is refused with a clear error instead.
  const inside = new AsyncLocalStorage<true>();
  let closed = false;
  /** PRAGMA data_version as read in this turn of the event loop (changeCounter). */
  let turnCounter: number | undefined;

  const rowsOf =
    (orm: typeof writerOrm) =>
    <T>(query: SQL): Promise<T[]> =>
      Promise.resolve(orm.all<T>(query));
  const txHandle = transactionHandle(writerOrm, {
    engine: "sqlite",
    t: tables,
    rows: rowsOf(writerOrm),
    prepared: writerStatements.prepare,
  });

  /** BEGIN IMMEDIATE, retried asynchronously while another process holds the write lock. */
  async function begin(): Promise<void> {
    const deadline = performance.now() + lockTimeoutMs;
    for (;;) {
      try {
        writer.exec("BEGIN IMMEDIATE");
        return;
      } catch (error) {
        if (!isBusy(error)) throw error;
        if (performance.now() >= deadline) {
          throw new DatabaseBusyError(
            `the database is busy: another process has held its write lock for over ${lockTimeoutMs / 1000} s`,
          );
        }
        await Bun.sleep(lockPollMs);
      }
    }
  }

  /** Per purpose; the CPU time only of the transactions it was read around (cpuSampleEvery). */
  const lockStats: Record<
    string,
    { transactions: number; heldMs: number; sampled: number; sampledCpuMs: number }
  > = {};
  /** The process's CPU time in ms (getrusage: a system call, several µs on a busy machine). */
  const cpuMs = () => {
    const usage = process.cpuUsage();
    return (usage.user + usage.system) / 1000;
  };
  /**
   * The CPU time is read around one transaction in this many and scaled to all of them: two
   * getrusage calls around every transaction were a tenth of a small claim's time under the lock.
   */
  const cpuSampleEvery = 8;
  /** Counted per purpose: purposes that take turns (claim, outcome batch) are each sampled. */
  const sampledNext = (purpose: string) =>
    (lockStats[purpose]?.transactions ?? 0) % cpuSampleEvery === 0;
  function countHeld(purpose: string, lockedAt: number, cpuAt: number | undefined): void {
    const entry = lockStats[purpose] ?? { transactions: 0, heldMs: 0, sampled: 0, sampledCpuMs: 0 };
    entry.transactions++;
    entry.heldMs += performance.now() - lockedAt;
    if (cpuAt !== undefined) {
      entry.sampled++;
      entry.sampledCpuMs += cpuMs() - cpuAt;
    }
    lockStats[purpose] = entry;
  }
  function writeLockStats(): WriteLockStats {
    const stats: WriteLockStats = {};
    for (const [purpose, entry] of Object.entries(lockStats)) {
      stats[purpose] = {
        transactions: entry.transactions,
        heldMs: entry.heldMs,
        heldCpuMs:
          entry.sampled === 0 ? 0 : (entry.sampledCpuMs / entry.sampled) * entry.transactions,
      };
    }
    return stats;
  }

  async function exclusive<T>(work: () => T | Promise<T>, purpose = "other"): Promise<T> {
    if (inside.getStore()) {
      throw new Error(
        "write() on the database inside a write transaction: pass the transaction (tx) instead",
      );
    }
    const release = await mutex.acquire();
    try {
      if (closed) throw new Error("the database is closed");
      await begin();
      const lockedAt = performance.now();
      const cpuAt = sampledNext(purpose) ? cpuMs() : undefined;
      let result: T;
      try {
        result = await inside.run(true, work);
      } catch (error) {
        writer.exec("ROLLBACK");
        countHeld(purpose, lockedAt, cpuAt);
        throw error;
      }
      try {
        writer.exec("COMMIT");
      } catch (error) {
        if (writer.inTransaction) writer.exec("ROLLBACK");
        throw error;
      } finally {
        countHeld(purpose, lockedAt, cpuAt);
        // This commit moved the counter: the next reader of it must see that (changeCounter).
        turnCounter = undefined;
      }
      return result;
    } finally {
      release();
    }
  }

  const write = <T>(work: (tx: Db) => Promise<T>, options?: WriteOptions): Promise<T> =>
    exclusive(() => work(txHandle), options?.purpose);

  const db = makeHandle(readerOrm, {
    engine: "sqlite",
    t: tables,
    inTransaction: false,
    write,
    rows: rowsOf(readerOrm),
    prepared: readerStatements.prepare,
  });

  // Moves when any other connection commits: this process's writer, or another process.
  const dataVersion = reader.prepare<[number], []>("PRAGMA data_version");
  // Read once per turn of the event loop, and again after each commit of this process's writer:
  // the PRAGMA is a statement with a read transaction's locks, ~4 µs, a sixth of a remembered
  // answer's CPU when every request read it (BENCHMARKS.md). A request served in this turn was
  // received before the turn began, so a commit the counter has not seen yet is no older than
  // the request; this process's own commits are seen by the very next request.
  const forgetTurnCounter = () => {
    turnCounter = undefined;
  };
  const changeCounter = () => {
    if (turnCounter === undefined) {
      turnCounter = Number(dataVersion.values()[0]?.[0]);
      setImmediate(forgetTurnCounter);
    }
    return turnCounter;
  };
  // The writer's own commits do not move its data_version (SQLite: "changes committed by any
  // other connection"), and the reader never commits, so on the writer it moves only with
  // another process's commits: what the outbox relay listens for (its own it hears directly).
  const writerDataVersion = writer.prepare<[number], []>("PRAGMA data_version");
  const otherProcessesCounter = () => Number(writerDataVersion.values()[0]?.[0]);
  return {
    engine: "sqlite",
    db,
    path,
    writer,
    reader,
    changeCounter,
    otherProcessesCounter,
    writeLockStats,
    exclusive: (work) => exclusive(() => work(writer)),
    location: path,
    isOpen: () => !closed,
    async ping() {
      reader.query("SELECT 1").get();
    },
    async close() {
      if (closed) return;
      // A transaction under way finishes first.
      const release = await mutex.acquire();
      try {
        if (closed) return;
        closed = true;
        // true: finalize every prepared statement too, so nothing can read a closed database.
        reader.close(true);
        writer.close(true);
      } finally {
        release();
      }
    },
  };
}
