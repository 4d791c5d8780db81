import { defineConfig } from "drizzle-kit";

// PostgreSQL's migrations (see drizzle.config.ts): `bun run db:generate` writes both sets.
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/db/schema/postgres.ts",
  out: "./migrations/postgres",
});
