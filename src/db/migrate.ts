// Schema migrations for both engines, from the drizzle-kit SQL embedded at build time. Each run
// applies what is missing in one transaction and records it in __drizzle_migrations (drizzle's
// own bookkeeping: hash and folder time of each migration). A database written by a newer release
// is refused rather than silently misread. Several processes may start at once (svc serve
// --workers, a cluster): SQLite serialises them on its write lock, PostgreSQL on an advisory
// lock, and the later ones find nothing left to do.
import { readMigrationFolder } from "./migration-files.ts" with { type: "macro" };
import type { MigrationFile } from "./migration-files.ts";
import type { PostgresDatabase } from "./postgres-store.ts";
import type { SqliteDatabase } from "./sqlite-store.ts";

// Inlined at bundle time: the compiled binary carries its migrations.
const embedded = {
  sqlite: readMigrationFolder("sqlite") as MigrationFile[],
  postgres: readMigrationFolder("postgres") as MigrationFile[],
};

const migrationsTable = "__drizzle_migrations";
/** pg_advisory_lock key of migrations ("svc" "mig" as two int4s would do; one bigint is simpler). */
const migrationLockKey = 7_305_066_517_321_001n;

export interface MigrationResult {
  applied: number;
  total: number;
}

export class MigrationError extends Error {
  override name = "MigrationError";
}

/** The migrations not yet applied, after checking the database is not newer than this release. */
function pending(migrations: MigrationFile[], lastAppliedMillis: number | undefined) {
  const newest = migrations.at(-1)?.folderMillis ?? 0;
  if (lastAppliedMillis !== undefined && lastAppliedMillis > newest) {
    throw new MigrationError(
      "the database was migrated by a newer release of svc; run that release or restore a backup",
    );
  }
  return migrations.filter(
    (m) => lastAppliedMillis === undefined || m.folderMillis > lastAppliedMillis,
  );
}

export async function migrateSqlite(
  database: SqliteDatabase,
  migrations: MigrationFile[] = embedded.sqlite,
): Promise<MigrationResult> {
  const todo = await database.exclusive((writer) => {
    writer.exec(
      `CREATE TABLE IF NOT EXISTS ${migrationsTable} (id INTEGER PRIMARY KEY, hash text NOT NULL, created_at numeric)`,
    );
    const last = writer
      .query<{ createdAt: number | string }, []>(
        `SELECT created_at AS createdAt FROM ${migrationsTable} ORDER BY created_at DESC LIMIT 1`,
      )
      .get();
    const todo = pending(migrations, last ? Number(last.createdAt) : undefined);
    const record = writer.query(`INSERT INTO ${migrationsTable} (hash, created_at) VALUES (?, ?)`);
    for (const migration of todo) {
      for (const statement of migration.sql) if (statement.trim()) writer.exec(statement);
      record.run(migration.hash, migration.folderMillis);
    }
    return todo;
  });
  return { applied: todo.length, total: migrations.length };
}

export async function migratePostgres(
  database: PostgresDatabase,
  migrations: MigrationFile[] = embedded.postgres,
): Promise<MigrationResult> {
  // One connection for the lock and the work: an advisory lock belongs to its session.
  const connection = await database.client.reserve();
  try {
    await connection`SELECT pg_advisory_lock(${migrationLockKey})`;
    try {
      return await connection.begin(async (tx) => {
        await tx.unsafe(
          `CREATE TABLE IF NOT EXISTS ${migrationsTable} (id serial PRIMARY KEY, hash text NOT NULL, created_at bigint)`,
        );
        const [last] = await tx.unsafe(
          `SELECT created_at FROM ${migrationsTable} ORDER BY created_at DESC LIMIT 1`,
        );
        const todo = pending(migrations, last ? Number(last.created_at) : undefined);
        for (const migration of todo) {
          for (const statement of migration.sql) if (statement.trim()) await tx.unsafe(statement);
          await tx`INSERT INTO __drizzle_migrations (hash, created_at) VALUES (${migration.hash}, ${migration.folderMillis})`;
        }
        return { applied: todo.length, total: migrations.length };
      });
    } finally {
      await connection`SELECT pg_advisory_unlock(${migrationLockKey})`;
    }
  } finally {
    connection.release();
  }
}

export function migrateDatabase(
  database: SqliteDatabase | PostgresDatabase,
): Promise<MigrationResult> {
  return database.engine === "sqlite" ? migrateSqlite(database) : migratePostgres(database);
}
