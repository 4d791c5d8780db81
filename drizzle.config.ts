import { defineConfig } from "drizzle-kit";

// `bun run db:generate` writes SQL migrations into migrations/; they are embedded into the
// binary at build time (src/db/embedded-migrations.ts), so no file is read at run time.
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/db/schema.ts",
  out: "./migrations",
});
