// Opening the configured engine: PostgreSQL when `databaseUrl` is set, else the embedded SQLite
// file in the data dir (the default: nothing else to run).
import { join } from "node:path";
import type { PostgresDatabase, PostgresOptions } from "./postgres-store.ts";
import type { SqliteDatabase } from "./sqlite-store.ts";

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

type PostgresStoreModule = typeof import("./postgres-store.ts");
type SqliteStoreModule = typeof import("./sqlite-store.ts");

export function openDatabase(
  settings: DatabaseSettings,
  postgresOptions: PostgresOptions = {},
): AnyDatabase {
  // Only the configured engine's store (its driver, its table declarations) is loaded: loading
  // both cost every start the other engine's modules. `require` keeps this synchronous; the
  // bundler resolves the literal paths, so the compiled binary carries both.
  if (settings.databaseUrl !== undefined) {
    const { openPostgresDatabase } = require("./postgres-store.ts") as PostgresStoreModule;
    return openPostgresDatabase(settings.databaseUrl, {
      ...(settings.databasePoolSize !== undefined ? { poolSize: settings.databasePoolSize } : {}),
      ...postgresOptions,
    });
  }
  const { openSqliteDatabase } = require("./sqlite-store.ts") as SqliteStoreModule;
  return openSqliteDatabase(databasePath(settings.dataDir));
}
