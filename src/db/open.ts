import { Database as SqliteDatabase } from "bun:sqlite";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { type BunSQLiteDatabase, drizzle } from "drizzle-orm/bun-sqlite";
import * as schema from "./schema.ts";

export type Db = BunSQLiteDatabase<typeof schema>;
/** What `db.transaction(...)` hands its callback; feature functions accept either. */
export type DbOrTx = Db | Parameters<Parameters<Db["transaction"]>[0]>[0];

/**
 * Options for a transaction that reads before it writes: BEGIN IMMEDIATE takes the write lock
 * up front. Under WAL, a deferred transaction whose snapshot another process (the CLI next to
 * the server) changed before its first write fails with SQLITE_BUSY_SNAPSHOT, which
 * busy_timeout does not retry; an immediate one waits for the lock instead.
 */
export const writeTransaction = { behavior: "immediate" } as const;

export interface Database {
  db: Db;
  sqlite: SqliteDatabase;
  path: string;
  /** False once close() was called. */
  isOpen(): boolean;
  close(): void;
}

export const databaseFileName = "svc.db";

export function databasePath(dataDir: string): string {
  return join(dataDir, databaseFileName);
}

/**
 * Opens (creating if needed) the SQLite database with the pragmas the service relies on:
 * WAL for concurrent readers, foreign keys enforced, a busy timeout so a CLI command and a
 * running server can share the file, and synchronous=NORMAL (durable across process crashes).
 */
export function openDatabase(path: string): Database {
  if (path !== ":memory:") {
    // Bank data: only the service's own user may read the directory and the file
    // (SQLite gives the -wal and -shm files the database file's permissions).
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    if (!existsSync(path)) writeFileSync(path, "", { mode: 0o600, flag: "wx" });
  }
  const sqlite = new SqliteDatabase(path, { create: true, strict: true });
  // The busy timeout first: even switching to WAL needs a lock another process may hold
  // (a CLI command, or a server recovering the WAL after a crash).
  sqlite.exec("PRAGMA busy_timeout = 5000");
  sqlite.exec("PRAGMA journal_mode = WAL");
  sqlite.exec("PRAGMA foreign_keys = ON");
  sqlite.exec("PRAGMA synchronous = NORMAL");
  const db = drizzle({ client: sqlite, schema });
  let closed = false;
  return {
    db,
    sqlite,
    path,
    isOpen: () => !closed,
    close() {
      if (closed) return;
      closed = true;
      sqlite.close();
    },
  };
}
