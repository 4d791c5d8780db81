// Runs at bundle time only, as a Bun macro (imported `with { type: "macro" }`): it reads the
// drizzle-kit output in migrations/<engine>/ and the result is inlined into the bundle, so a
// compiled binary migrates a database from any directory without reading a file.
import { join } from "node:path";
import { readMigrationFiles } from "drizzle-orm/migrator";

export type MigrationFile = ReturnType<typeof readMigrationFiles>[number];

export function readMigrationFolder(engine: "sqlite" | "postgres"): MigrationFile[] {
  return readMigrationFiles({
    migrationsFolder: join(import.meta.dir, "../../migrations", engine),
  });
}
