// The servers under test for scripts/bench/read-api.ts, in their own process: the real service
// (Bun.serve + the Hono app, SQLite with 100,000 transactions on one account, access log on) and a bare Bun.serve
// answering a constant. Prints one JSON line with their URLs and a key, then serves until killed.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { createServiceAccount } from "../../src/accounts/service-accounts.ts";
import { systemClock } from "../../src/clock.ts";
import { loadConfig } from "../../src/config.ts";
import { startHttpServer } from "../../src/http/server.ts";
import { createApiKey } from "../../src/keys/api-keys.ts";
import { createLogger } from "../../src/log.ts";
import { createStderrSink } from "../../src/log-sink.ts";
import { openServices } from "../../src/services.ts";
import {
  generatedTransactions,
  insertTransactions,
  seedConnection,
} from "../../test/support/bank-fixtures.ts";

const transactionCount = Number(process.env.BENCH_TRANSACTIONS ?? 100_000);
const dataDir = mkdtempSync(join(tmpdir(), "svc-bench-"));
process.on("exit", () => rmSync(dataDir, { recursive: true, force: true }));

const stderr = createStderrSink();
const config = loadConfig({ env: {}, cwd: dataDir, flags: { dataDir } });
const services = await openServices(
  // The rate limiter stays on (its cost is part of the hot path) with a limit the run never hits.
  { ...config, host: "127.0.0.1", port: 0, apiRateLimitPerMinute: 1_000_000_000 },
  {
    clock: systemClock,
    // As `svc serve` logs by default: an access-log line per request at info, to stderr in
    // batches; the benchmark reads the pipe, as journald would.
    log: createLogger({ level: "info", write: stderr.write, flush: stderr.flush }),
    env: { SVC_MASTER_KEY: "0f".repeat(32) },
  },
);
const owner = await createServiceAccount(services.db, systemClock, {
  email: "bench@example.com",
  password: "benchmark password",
});
const serviceAccountId = owner.account.id;
const bank = await seedConnection(services.db, systemClock, serviceAccountId, { accounts: 3 });
const accountId = bank.accountIds[0] as string;
const today = new Date().toISOString().slice(0, 10);
// ~137 a day over two years: the default 90-day window holds ~12,000 of them.
await insertTransactions(
  services.db,
  systemClock,
  accountId,
  generatedTransactions(transactionCount, { lastDate: today, perDay: 137 }),
);
// Fresh statistics for the planner, as the engines keep them in production.
await services.db.rows(
  sql.raw(services.database.engine === "sqlite" ? "PRAGMA optimize" : "ANALYZE"),
);
const { key } = await createApiKey(services.db, systemClock, { serviceAccountId, name: "bench" });

const api = startHttpServer(services);
const apiUrl = api.url.toString().replace(/\/$/, "");
// The same service with logLevel "warn" (no access-log lines), to show what the log costs.
const quietApi = startHttpServer({
  ...services,
  log: createLogger({ level: "warn", write: stderr.write, flush: stderr.flush }),
});
// The transactions page's own bytes, for a second baseline that isolates the HTTP transfer cost.
const pageBody = await (
  await fetch(`${apiUrl}/v1/accounts/${accountId}/transactions?limit=100`, {
    headers: { Authorization: `Bearer ${key}` },
  })
).text();
const body = JSON.stringify({ status: "ok" });
const json = { "Content-Type": "application/json" };
const bare = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: (request) =>
    new Response(request.url.endsWith("/page") ? pageBody : body, { headers: json }),
});

console.log(
  JSON.stringify({
    apiUrl,
    quietApiUrl: quietApi.url.toString().replace(/\/$/, ""),
    pageBytes: pageBody.length,
    bareUrl: bare.url.toString().replace(/\/$/, ""),
    key,
    accountId,
    transactionCount,
  }),
);

process.on("SIGTERM", async () => {
  await api.stop(true);
  await quietApi.stop(true);
  await bare.stop(true);
  await services.database.close();
  process.exit(0);
});
