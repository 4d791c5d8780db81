// Each SQL text compiled once per SQLite connection, for drizzle's queries and for the hot
// paths' statements of fixed text (Db.prepared) alike. drizzle's bun:sqlite driver compiles every
// query it runs anew (Database.prepare, uncached): sqlite3_prepare was ~15 % of the CPU of a
// one-event write transaction, all of it while the write lock was held (BENCHMARKS.md, "compiled
// statements"). bun:sqlite's own cache (Database.query()) keeps 20 texts, fewer than the
// service's; drizzle's texts carry placeholders, never values, so they are a few hundred at
// most. Sharing a Statement is safe because bun:sqlite runs one to completion synchronously
// (all/values/run/get reset it first), so no two uses overlap. Closing the connection with
// `close(true)` finalizes them all.
import type { Database, Statement } from "bun:sqlite";

/** Distinct SQL texts kept per connection (least recently used dropped first). */
const cachedStatementsPerConnection = 512;
/** Longer texts (large multi-row inserts) are compiled each time, not kept. */
const maxCachedTextLength = 16 * 1024;

/** What drizzle's bun:sqlite session uses of a connection (and Db.prepared, `prepare`). */
type DrizzleSqliteClient = Pick<Database, "prepare" | "exec" | "transaction">;

/**
 * `connection` for drizzle, with its statements compiled once per SQL text. A statement dropped
 * from the cache is not finalized: a drizzle query prepared for reuse may still hold it, and
 * bun:sqlite finalizes it once nothing does.
 */
export function withStatementCache(
  connection: Database,
  maxStatements = cachedStatementsPerConnection,
): DrizzleSqliteClient {
  const statements = new Map<string, Statement>();
  return {
    prepare: ((sqlText: string) => {
      if (sqlText.length > maxCachedTextLength) return connection.prepare(sqlText);
      let statement = statements.get(sqlText);
      if (statement) {
        // Most recently used last: Map keeps insertion order.
        statements.delete(sqlText);
      } else {
        statement = connection.prepare(sqlText);
        if (statements.size >= maxStatements) {
          statements.delete(statements.keys().next().value as string);
        }
      }
      statements.set(sqlText, statement);
      return statement;
    }) as Database["prepare"],
    exec: connection.exec.bind(connection) as Database["exec"],
    transaction: connection.transaction.bind(connection) as Database["transaction"],
  };
}
