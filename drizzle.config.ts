import { defineConfig } from "drizzle-kit";

// `bun run db:generate` writes SQL migrations for the embedded SQLite engine into
// migrations/sqlite (drizzle.postgres.config.ts does the same for PostgreSQL); both sets are
// embedded into the binary at build time (src/db/migration-files.ts), so no file is read at run
// time.
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/db/schema/sqlite.ts",
  out: "./migrations/sqlite",
});
