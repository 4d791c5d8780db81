// The PostgreSQL engine (`databaseUrl`), for operators who outgrow one machine: Bun's built-in
// SQL client through drizzle's bun-sql driver (measured about twice postgres.js's point-read
// rate here), one bounded pool per process. Every `write()` is a SERIALIZABLE transaction, the
// same guarantee SQLite's single writer gives, retried a bounded number of times when
// PostgreSQL reports a serialization failure or a deadlock (db/store.ts, "The transaction rule").
import { AsyncLocalStorage } from "node:async_hooks";
import { hostname } from "node:os";
import { SQL as BunSql } from "bun";
import type { SQL } from "drizzle-orm";
import { drizzle } from "drizzle-orm/bun-sql";
import { PgDialect } from "drizzle-orm/pg-core";
import { redactDatabaseUrl } from "./database-url.ts";
import { makeHandle, transactionHandle } from "./handle.ts";
import * as postgresTables from "./schema/postgres.ts";
import type { Tables } from "./schema.ts";
import type { Database, Db, WriteOptions } from "./store.ts";

export interface PostgresDatabase extends Database {
  readonly engine: "postgres";
  /** Bun's client (the pool): for operations such as migrations and advisory locks. */
  readonly client: BunSql;
  readonly poolSize: number;
  /** This process's `application_name` on the server (pg_stat_activity tells its connections). */
  readonly applicationName: string;
}

export interface PostgresOptions {
  /** Connections in the pool at most (`databasePoolSize`, default 10). */
  poolSize?: number;
  /** Attempts of one `write()` when it keeps failing to serialize (default 8). */
  maxAttempts?: number;
  /** An idle connection of the pool closes after this long (default 60 s). */
  idleTimeoutSeconds?: number;
}

const defaultPoolSize = 10;
const defaultMaxAttempts = 8;
/** SQLSTATEs worth another attempt: serialization_failure, deadlock_detected. */
const retryableStates = new Set(["40001", "40P01"]);

const tables = postgresTables as unknown as Tables;

/**
 * The SQLSTATE of a PostgreSQL error (Bun puts it in `errno`), if any, also when drizzle wrapped
 * the driver's error (`cause`).
 */
function sqlState(error: unknown): string | undefined {
  for (let e = error, depth = 0; e && depth < 5; depth++) {
    const errno = (e as { errno?: unknown }).errno;
    if (typeof errno === "string") return errno;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

export function isRetryable(error: unknown): boolean {
  const state = sqlState(error);
  return state !== undefined && retryableStates.has(state);
}

/** Connects lazily: the first query opens the first connection. */
export function openPostgresDatabase(url: string, options: PostgresOptions = {}): PostgresDatabase {
  const poolSize = options.poolSize ?? defaultPoolSize;
  const maxAttempts = options.maxAttempts ?? defaultMaxAttempts;
  // Unique per process, so the server can tell which connections are this process's.
  const applicationName = `svc/${process.pid}@${hostname()}`.slice(0, 63);
  const client = new BunSql({
    url,
    connection: { application_name: applicationName },
    max: poolSize,
    idleTimeout: options.idleTimeoutSeconds ?? 60,
    connectionTimeout: 15,
  });
  const orm = drizzle({ client });
  const inside = new AsyncLocalStorage<true>();
  let closed = false;

  const dialect = new PgDialect();
  /**
   * Raw statements go to Bun's client as drizzle would send them (its dialect compiles them),
   * started at once: Bun sends queries in the order they start, so a statement started after
   * these (COMMIT behind the work, `commitWithWork`) follows them on the wire.
   */
  const rowsOf =
    (runner: BunSql) =>
    <T>(query: SQL): Promise<T[]> => {
      const compiled = dialect.sqlToQuery(query);
      return runner.unsafe(compiled.sql, compiled.params).then((rows: Iterable<T>) => [...rows]);
    };

  async function write<T>(work: (tx: Db) => Promise<T>, options: WriteOptions = {}): Promise<T> {
    if (inside.getStore()) {
      throw new Error(
        "write() on the database inside a write transaction: pass the transaction (tx) instead",
      );
    }
    if (closed) throw new Error("the database is closed");
    const isolationLevel = options.isolation ?? "serializable";
    for (let attempt = 1; ; attempt++) {
      try {
        return await inside.run(true, () =>
          transaction(isolationLevel, work, options.commitWithWork === true),
        );
      } catch (error) {
        if (!isRetryable(error) || attempt >= maxAttempts) throw error;
        // Back off with jitter, so transactions that collided do not collide again.
        await Bun.sleep(Math.random() * Math.min(2 ** attempt * 5, 500));
      }
    }
  }

  /**
   * One transaction on a connection of its own. BEGIN (with its isolation level: drizzle's
   * transaction() sends the level as a statement of its own) is not awaited before the work's
   * first statement: Bun's client sends statements it has prepared on a connection back to back
   * (pipelined), so BEGIN goes out with the first statement, one round trip instead of two (Bun's
   * begin() awaits BEGIN). The server still runs them in order, each after the one before. A
   * BEGIN cannot be refused on a live connection (nothing it asks can fail), so when it fails the
   * connection is gone and the work's statements fail with it; a connection released inside a
   * transaction (ROLLBACK failed too) is closed by Bun, never handed out again. With
   * `commitWithWork`, COMMIT is started right after the work's first synchronous part, so BEGIN,
   * the work's statements and COMMIT leave in one write; if a statement fails, the server ends
   * the aborted transaction at that COMMIT with a rollback. The work's `tx.commitBehind()` does
   * the same later, behind the statements it has started by then.
   */
  async function transaction<T>(
    isolationLevel: NonNullable<WriteOptions["isolation"]>,
    work: (tx: Db) => Promise<T>,
    commitWithWork: boolean,
  ): Promise<T> {
    const connection = await client.reserve();
    try {
      // Started now (Bun's queries start when awaited or given a callback): ahead of the work's.
      const begun = (
        isolationLevel === "serializable"
          ? connection`BEGIN ISOLATION LEVEL SERIALIZABLE`
          : connection`BEGIN ISOLATION LEVEL READ COMMITTED`
      ).then(
        () => undefined,
        (error: unknown) => error ?? new Error("BEGIN failed"),
      );
      let result: T;
      let committed: Promise<unknown> | undefined;
      try {
        const txOrm = drizzle({ client: connection });
        const rowsOnConnection = rowsOf(connection);
        // A statement started after COMMIT was sent would run outside the transaction: refused.
        const rows = <R>(query: SQL): Promise<R[]> =>
          committed
            ? Promise.reject(new Error("commitWithWork: a statement started after COMMIT was sent"))
            : rowsOnConnection<R>(query);
        // Started after the statements the work has started through rows() so far.
        const commitBehind = () => {
          if (committed) return;
          committed = connection`COMMIT`.then(() => undefined);
          committed.catch(() => undefined);
        };
        const running = work(
          transactionHandle(txOrm, { engine: "postgres", t: tables, rows, commitBehind }),
        );
        // The statements the work started before its first await.
        if (commitWithWork) commitBehind();
        result = await running;
      } catch (error) {
        // BEGIN's own failure explains the work's (it ran outside a transaction block).
        throw (await begun) ?? error;
      }
      const beginError = await begun;
      if (beginError) throw beginError;
      await (committed ?? connection`COMMIT`);
      return result;
    } catch (error) {
      // After a failed COMMIT there is nothing left to roll back (the server answers a warning).
      await connection`ROLLBACK`.catch(() => undefined);
      throw error;
    } finally {
      connection.release();
    }
  }

  const db = makeHandle(orm, {
    engine: "postgres",
    t: tables,
    inTransaction: false,
    write,
    rows: rowsOf(client),
  });

  return {
    engine: "postgres",
    db,
    client,
    poolSize,
    applicationName,
    location: redactDatabaseUrl(url),
    isOpen: () => !closed,
    async ping() {
      await client`SELECT 1`;
    },
    async close() {
      if (closed) return;
      closed = true;
      await client.close({ timeout: 5 });
    },
  };
}
