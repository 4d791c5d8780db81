// Opening the configured engine: PostgreSQL when `databaseUrl` is set, else the embedded SQLite
// file in the data dir (the default: nothing else to run).
import { join } from "node:path";
import {
  openPostgresDatabase,
  type PostgresDatabase,
  type PostgresOptions,
} from "./postgres-store.ts";
import { openSqliteDatabase, type SqliteDatabase } from "./sqlite-store.ts";

export type { PostgresDatabase } from "./postgres-store.ts";
export type { SqliteDatabase } from "./sqlite-store.ts";
export type { Database, Db, Engine } from "./store.ts";

/** Either engine; operations that differ (backup, gauges) switch on `engine`. */
export type AnyDatabase = SqliteDatabase | PostgresDatabase;

export const databaseFileName = "svc.db";

function databasePath(dataDir: string): string {
  return join(dataDir, databaseFileName);
}

export interface DatabaseSettings {
  dataDir: string;
  databaseUrl?: string | undefined;
  databasePoolSize?: number | undefined;
}

export function openDatabase(
  settings: DatabaseSettings,
  postgresOptions: PostgresOptions = {},
): AnyDatabase {
  if (settings.databaseUrl !== undefined) {
    return openPostgresDatabase(settings.databaseUrl, {
      ...(settings.databasePoolSize !== undefined ? { poolSize: settings.databasePoolSize } : {}),
      ...postgresOptions,
    });
  }
  return openSqliteDatabase(databasePath(settings.dataDir));
}
