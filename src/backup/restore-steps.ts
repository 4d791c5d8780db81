// A PostgreSQL backup is a pg_dump archive beside the master key: a start from that directory
// without a database URL would make a new, empty SQLite database and a new operator while the
// data sits unused in svc.pgdump. The steps that do restore it, and the refusal that says them.
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config/config.ts";
import { ConfigError } from "../config/config.ts";
import { databaseFileName } from "../db/open.ts";
import { postgresDumpFileName } from "./verify.ts";

/** What to run, in order, to restore the PostgreSQL backup in `directory`. */
export function postgresRestoreSteps(directory: string): string[] {
  const url = "postgres://USER@HOST:5432/NEW_DATABASE";
  return [
    "create a new, empty PostgreSQL database (e.g. createdb -h HOST -U USER NEW_DATABASE)",
    `pg_restore --no-owner --dbname=${url} ${join(directory, postgresDumpFileName)}`,
    `svc serve --data-dir ${directory} --database-url ${url} (or SVC_DATABASE_URL; the master key is in ${directory}, or give SVC_MASTER_KEY)`,
  ];
}

/**
 * `svc serve` and `svc migrate` create a database where there is none: refuse when the data dir
 * is a PostgreSQL backup and no database URL says where its data was restored to.
 */
export function refusePostgresBackupWithoutUrl(config: Config): void {
  if (config.databaseUrl) return;
  const dump = join(config.dataDir, postgresDumpFileName);
  if (!existsSync(dump) || existsSync(join(config.dataDir, databaseFileName))) return;
  const steps = postgresRestoreSteps(config.dataDir).map((step, index) => `${index + 1}. ${step}`);
  throw new ConfigError(
    `${config.dataDir} holds a PostgreSQL backup (${postgresDumpFileName}) but no database URL is set, so a start here would begin a new, empty SQLite database instead of your data. To restore it: ${steps.join("; ")}.`,
  );
}
