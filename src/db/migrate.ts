import { readMigrationFolder } from "./migration-files.ts" with { type: "macro" };
import type { MigrationFile } from "./migration-files.ts";
import type { Database } from "./open.ts";

// Inlined at bundle time: the compiled binary carries its migrations.
const embeddedMigrations: MigrationFile[] = readMigrationFolder();

const migrationsTable = "__drizzle_migrations";

export interface MigrationResult {
  applied: number;
  total: number;
}

export class MigrationError extends Error {
  override name = "MigrationError";
}

function lastAppliedMillis(database: Database): number | undefined {
  const table = database.sqlite
    .query("SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?")
    .get(migrationsTable);
  if (!table) return undefined;
  const row = database.sqlite
    .query(
      `SELECT created_at AS createdAt FROM ${migrationsTable} ORDER BY created_at DESC LIMIT 1`,
    )
    .get() as { createdAt: number | string } | null;
  return row ? Number(row.createdAt) : undefined;
}

/**
 * Brings the schema up to date in one transaction; a second run applies nothing.
 * A database written by a newer release is refused rather than silently misread.
 */
export function migrateDatabase(
  database: Database,
  migrations: MigrationFile[] = embeddedMigrations,
): MigrationResult {
  const last = lastAppliedMillis(database);
  const newest = migrations.at(-1)?.folderMillis ?? 0;
  if (last !== undefined && last > newest) {
    throw new MigrationError(
      "the database was migrated by a newer release of svc; run that release or restore a backup",
    );
  }
  const pending = migrations.filter((m) => last === undefined || m.folderMillis > last);
  if (pending.length > 0) {
    // drizzle's own migrator reads a folder; its dialect applies in-memory migrations the same way.
    const internals = database.db as unknown as {
      dialect: {
        migrate(m: MigrationFile[], session: unknown, config: { migrationsFolder: string }): void;
      };
      session: unknown;
    };
    internals.dialect.migrate(migrations, internals.session, { migrationsFolder: "" });
  }
  return { applied: pending.length, total: migrations.length };
}
