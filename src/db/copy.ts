// Moving an install from embedded SQLite to PostgreSQL (`svc db copy --to URL`): every row of
// every table, in one PostgreSQL transaction, into an empty, freshly migrated database; the row
// counts of both sides are compared before the transaction commits, so a copy is whole or absent.
// The source is only read.
import { type AnyColumn, asc, count, getTableColumns, gt, sql } from "drizzle-orm";
import { getTableConfig as getPgTableConfig } from "drizzle-orm/pg-core";
import { ApiError } from "../core/errors.ts";
import { chunks } from "./chunks.ts";
import { migratePostgres } from "./migrate.ts";
import { openPostgresDatabase } from "./postgres-store.ts";
import type { TableName, Tables } from "./schema.ts";
import type { SqliteDatabase } from "./sqlite-store.ts";
import type { Db } from "./store.ts";

/** Parents before children, so every foreign key finds its row. */
export const copyOrder: TableName[] = [
  "serviceAccounts",
  "users",
  "sessions",
  "apiKeys",
  "connections",
  "linkStates",
  "bankAccounts",
  "balances",
  "transactions",
  "transactionProviderIds",
  "transactionChanges",
  "syncRuns",
  "webhookEndpoints",
  "verificationCodes",
  "events",
  "endpointRecoveries",
  "deliveries",
  "deliveryAttempts",
  "rateLimitCounters",
  "rateLimitLog",
  "scheduledRuns",
  "mailOutbox",
  "instanceMeta",
  "serviceProcesses",
  "eventStreams",
];

/** Rows read from the source per query. */
const readBatch = 2_000;

export interface CopyProgress {
  table: string;
  copied: number;
  total: number;
}

export interface CopyResult {
  /** Rows per table (database table name), equal on both sides. */
  tables: Record<string, number>;
  rows: number;
}

function sqlName(tables: Tables, name: TableName): string {
  return getPgTableConfig(tables[name] as never).name;
}

async function countRows(db: Db, name: TableName): Promise<number> {
  const [row] = await db.select({ n: count() }).from(db.t[name] as never);
  return Number((row as { n: number } | undefined)?.n ?? 0);
}

/**
 * Every row of one table, a batch at a time: in key order from the last key read (keyset, so a
 * large table costs the same per batch throughout), or by offset for a composite key.
 */
async function* readTable(db: Db, name: TableName): AsyncGenerator<Record<string, unknown>[]> {
  const table = db.t[name] as never;
  const columns = Object.entries(getTableColumns(table) as Record<string, AnyColumn>);
  const keys = columns.filter(([, column]) => column.primary);
  const [single] = keys.length === 1 ? keys : [];
  let after: unknown;
  for (let offset = 0; ; offset += readBatch) {
    const query = db
      .select()
      .from(table)
      .where(single && after !== undefined ? gt(single[1], after) : undefined)
      .orderBy(...(keys.length > 0 ? keys : columns).map(([, column]) => asc(column)))
      .limit(readBatch);
    const rows = (await (single ? query : query.offset(offset))) as Record<string, unknown>[];
    if (rows.length === 0) return;
    yield rows;
    if (rows.length < readBatch) return;
    if (single) after = rows.at(-1)?.[single[0]];
  }
}

/**
 * Copies the SQLite database into the (empty) PostgreSQL database at `targetUrl`. Refuses a
 * target that holds any row. `onProgress` is told after every batch.
 */
export async function copyToPostgres(
  source: SqliteDatabase,
  targetUrl: string,
  options: { onProgress?: (progress: CopyProgress) => void } = {},
): Promise<CopyResult> {
  const target = openPostgresDatabase(targetUrl, { poolSize: 2 });
  try {
    await migratePostgres(target);
    const totals = new Map<TableName, number>();
    for (const name of copyOrder) totals.set(name, await countRows(source.db, name));
    return await target.db.write(async (tx) => {
      for (const name of copyOrder) {
        if ((await countRows(tx, name)) > 0) {
          throw new ApiError(
            "conflict",
            `The target database is not empty (table ${sqlName(tx.t, name)} has rows); svc db copy only fills an empty database.`,
          );
        }
      }
      const tables: Record<string, number> = {};
      let rows = 0;
      for (const name of copyOrder) {
        const total = totals.get(name) ?? 0;
        if (name === "transactionChanges") {
          // The feed's triggers wrote a change for every transaction copied above: the source's
          // own changes replace them, with their numbers, so stored feed cursors stay valid.
          await tx.delete(tx.t.transactionChanges);
        }
        let copied = 0;
        for await (const batch of readTable(source.db, name)) {
          for (const part of chunks(batch))
            await tx.insert(tx.t[name] as never).values(part as never);
          copied += batch.length;
          options.onProgress?.({ table: sqlName(tx.t, name), copied, total });
        }
        const written = await countRows(tx, name);
        if (written !== total || copied !== total) {
          throw new Error(
            `table ${sqlName(tx.t, name)}: ${total} rows in SQLite but ${written} written; nothing was kept`,
          );
        }
        if (name === "transactionChanges") {
          // New changes are numbered after the copied ones.
          await tx.rows(
            sql`SELECT setval(pg_get_serial_sequence('transaction_changes', 'seq'), greatest(coalesce(max(seq), 0), 1), max(seq) IS NOT NULL) FROM transaction_changes`,
          );
        }
        tables[sqlName(tx.t, name)] = written;
        rows += written;
      }
      return { tables, rows };
    });
  } finally {
    await target.close();
  }
}
