// Preloaded before every test file (bunfig.toml): what the whole run shares.
import { afterAll } from "bun:test";
import { dropTestDatabases } from "./support/engine.ts";

// The PostgreSQL databases the suites created (support/engine.ts), dropped once all have run.
afterAll(dropTestDatabases, 300_000);
