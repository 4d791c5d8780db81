// The servers under test for scripts/bench/read-api.ts, in their own process: the real service
// (the Hono app behind Bun.serve as `svc serve` runs it, access log on) and a bare Bun.serve
// answering a constant. Four service accounts, each with its own key and one bank account:
// 100,000 transactions on the first, 20,000 on each of the others, some of the newest pending.
// Writes the URL lists the load generator rotates over (more distinct URLs than the answer cache
// holds, so none of them is served from it) and measures page depth in-process, then prints one
// JSON line with everything the bench needs and serves until killed.
//
// `--database-url postgres://…` runs the service on a fresh database created on that server.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { sql } from "drizzle-orm";
import { createServiceAccount } from "../../src/accounts/service-accounts.ts";
import { createAccountReads } from "../../src/api/accounts/read.ts";
import { encodeChangesCursor } from "../../src/api/transaction-changes/cursor.ts";
import { createTransactionChangeReads } from "../../src/api/transaction-changes/read.ts";
import { resolveTransactionQuery } from "../../src/api/transactions/query.ts";
import { createTransactionReads } from "../../src/api/transactions/read.ts";
import { loadConfig } from "../../src/config/config.ts";
import { systemClock } from "../../src/core/clock.ts";
import { createApiKey } from "../../src/keys/api-keys.ts";
import { createLogger } from "../../src/log/log.ts";
import { createStderrSink } from "../../src/log/sink.ts";
import { createHttpApp } from "../../src/server/app.ts";
import { openServices } from "../../src/server/services.ts";
import {
  generatedTransactions,
  insertTransactions,
  seedConnection,
} from "../../test/support/bank-fixtures.ts";
import { openBenchDatabase } from "./bench-database.ts";

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: { "database-url": { type: "string" } },
});
const bigAccountRows = Number(process.env.BENCH_TRANSACTIONS ?? 100_000);
const otherAccountRows = 20_000;
// BENCH_TENANTS=1 gives the data set of the bench before the storage layer (one account, 100,000 rows).
const tenantCount = Number(process.env.BENCH_TENANTS ?? 4);
const store = await openBenchDatabase(values["database-url"]);
process.on("exit", () => void store.dispose());

const stderr = createStderrSink();
const config = loadConfig({
  env: {},
  cwd: store.dataDir,
  flags: {
    dataDir: store.dataDir,
    ...(store.databaseUrl ? { databaseUrl: store.databaseUrl } : {}),
  },
});
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
const { db } = services;
const today = new Date().toISOString().slice(0, 10);
const dayMs = 86_400_000;
const daysBack = (days: number) => new Date(Date.now() - days * dayMs).toISOString().slice(0, 10);

interface Tenant {
  serviceAccountId: string;
  accountId: string;
  key: string;
}
const tenants: Tenant[] = [];
for (let i = 0; i < tenantCount; i++) {
  const owner = await createServiceAccount(db, systemClock, {
    email: `bench${i}@example.com`,
    password: "benchmark password",
  });
  const serviceAccountId = owner.account.id;
  const bank = await seedConnection(db, systemClock, serviceAccountId, { accounts: 1 });
  const accountId = bank.accountIds[0] as string;
  const rows = generatedTransactions(i === 0 ? bigAccountRows : otherAccountRows, {
    lastDate: today,
    perDay: 137,
  }).map((row, n) => (n < 400 && n % 4 === 0 ? { ...row, status: "pending" as const } : row));
  for (let start = 0; start < rows.length; start += 20_000) {
    await insertTransactions(db, systemClock, accountId, rows.slice(start, start + 20_000));
  }
  const { key } = await createApiKey(db, systemClock, { serviceAccountId, name: "bench" });
  tenants.push({ serviceAccountId, accountId, key });
}
// Fresh statistics for the planner, as the engines keep them in production.
await db.write((tx) => tx.rows(sql.raw("ANALYZE")));

// The service as `svc serve` runs it (src/server/server.ts), counting the answers that came from
// the answer cache so the bench can show that the rotating targets were not served from it.
const app = createHttpApp(services);
const served = { cached: 0, total: 0 };
const api = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  development: false,
  fetch(request, server) {
    served.total++;
    const answer = app.fetch(request, server);
    if (!(answer instanceof Promise)) {
      if (app.fromCache(answer)) served.cached++;
      return answer;
    }
    return answer.then((response) => {
      if (app.fromCache(response)) served.cached++;
      return response;
    });
  },
});
const apiUrl = api.url.toString().replace(/\/$/, "");
const transactionsPath = (tenant: Tenant) => `/v1/accounts/${tenant.accountId}/transactions`;

// First pages: each tenant x window (from 30-89 days back, to 0-29 days back) x limit 60-100 x
// include_pending: 72,000 URLs, each asked again only after tens of thousands of others — as
// integrators moving their windows ask, and longer than the answer cache remembers a URL asked
// once (src/api/middleware/answer-store.ts), so none is served from it.
const firstPages: string[] = [];
for (let days = 30; days < 90; days++) {
  for (let toDays = 0; toDays < 30; toDays++) {
    for (const limit of [60, 70, 80, 90, 100]) {
      for (const pending of [false, true]) {
        for (const tenant of tenants) {
          firstPages.push(
            `${transactionsPath(tenant)}?from=${daysBack(days)}&to=${daysBack(toDays)}&limit=${limit}${pending ? "&include_pending=true" : ""} ${tenant.key}`,
          );
        }
      }
    }
  }
}
// Later pages: every cursor of a two-year window, pages of 60-100 rows, on every tenant.
const laterPages: string[] = [];
const deepest: { tenant: Tenant; cursor: string; page: number } = {
  tenant: tenants[0] as Tenant,
  cursor: "",
  page: 0,
};
for (const tenant of tenants) {
  for (const limit of [60, 70, 80, 90, 100]) {
    let cursor: string | null = null;
    let page = 1;
    let url = `${apiUrl}${transactionsPath(tenant)}?from=${daysBack(729)}&limit=${limit}`;
    for (;;) {
      const response = await fetch(url, { headers: { Authorization: `Bearer ${tenant.key}` } });
      if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
      cursor = ((await response.json()) as { next_cursor: string | null }).next_cursor;
      if (cursor === null) break;
      page++;
      laterPages.push(`${transactionsPath(tenant)}?limit=${limit}&cursor=${cursor} ${tenant.key}`);
      if (tenant === tenants[0] && limit === 100) Object.assign(deepest, { cursor, page });
      url = `${apiUrl}${transactionsPath(tenant)}?limit=${limit}&cursor=${cursor}`;
    }
  }
}
// Interleaved so that consecutive requests come from different tenants and windows.
const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
const spread = (lines: string[]) => {
  let stride = 7919;
  while (gcd(stride, lines.length) !== 1) stride += 2; // a permutation of the lines
  return lines.map((_, i) => lines[(i * stride) % lines.length] as string);
};
const firstPagesFile = join(store.dataDir, "first-pages.txt");
const laterPagesFile = join(store.dataDir, "later-pages.txt");
writeFileSync(firstPagesFile, `${spread(firstPages).join("\n")}\n`);
writeFileSync(laterPagesFile, `${spread(laterPages).join("\n")}\n`);

// Page depth, in-process: the first and the deepest page of the big account's two-year window,
// read alternately through the same read function the route calls, so only depth differs.
const accountReads = createAccountReads(db);
const reads = createTransactionReads(db, accountReads);
const big = tenants[0] as Tenant;
const firstQuery = resolveTransactionQuery(
  { from: daysBack(729), limit: 100 },
  big.accountId,
  new Date(),
);
const deepQuery = resolveTransactionQuery(
  { cursor: deepest.cursor, limit: 100 },
  big.accountId,
  new Date(),
);
const timings = { first: [] as number[], deep: [] as number[] };
for (let i = 0; i < 3_000; i++) {
  for (const [name, query] of [
    ["first", firstQuery],
    ["deep", deepQuery],
  ] as const) {
    const started = performance.now();
    await reads.listTransactions(big.serviceAccountId, big.accountId, query);
    if (i >= 300) timings[name].push(performance.now() - started);
  }
}
const median = (list: number[]) => [...list].sort((a, b) => a - b)[list.length >> 1] as number;

// The change feed: an account whose feed cursor was taken before 10,000 transactions arrived,
// so reading from it is reading 10,000 changes (read-api.ts times it against reading the same
// rows through the list, in the same run).
const feedChanges = 10_000;
const feedOwner = await createServiceAccount(db, systemClock, {
  email: "bench-feed@example.com",
  password: "benchmark password",
});
const feedBank = await seedConnection(db, systemClock, feedOwner.account.id, { accounts: 1 });
const feedAccountId = feedBank.accountIds[0] as string;
const feedKey = (
  await createApiKey(db, systemClock, { serviceAccountId: feedOwner.account.id, name: "feed" })
).key;
const feedStart = await createTransactionChangeReads(db, accountReads).feedStart(feedAccountId);
const feedCursor = encodeChangesCursor(
  feedAccountId,
  { phase: "changes", position: feedStart.phase === "snapshot" ? feedStart.head : 0 },
  new Date(),
);
await insertTransactions(
  db,
  systemClock,
  feedAccountId,
  generatedTransactions(feedChanges, { lastDate: today, perDay: 137 }),
);

// The first page's own bytes, for a baseline that isolates the HTTP transfer cost.
const samplePath = `${transactionsPath(big)}?limit=100`;
const pageBody = await (
  await fetch(`${apiUrl}${samplePath}`, { headers: { Authorization: `Bearer ${big.key}` } })
).text();
const constant = JSON.stringify({ status: "ok" });
const json = { "Content-Type": "application/json" };
const bare = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(request) {
    // endsWith, not new URL(): parsing the URL costs the constant server ~10 % of its rate.
    if (request.url.endsWith("/__served")) {
      const answer = Response.json(served);
      served.cached = 0;
      served.total = 0;
      return answer;
    }
    return new Response(request.url.endsWith("/page") ? pageBody : constant, { headers: json });
  },
});

// Collect the setup's garbage (seeded rows, URL lists) before anything is measured.
Bun.gc(true);

console.log(
  JSON.stringify({
    engine: services.database.engine,
    // Where scripts/bench/engine-floor.ts reads the same pages on a connection of its own.
    floorSource:
      services.database.engine === "sqlite"
        ? ["--sqlite", services.database.location]
        : ["--database-url", store.databaseUrl as string],
    apiUrl,
    bareUrl: bare.url.toString().replace(/\/$/, ""),
    key: big.key,
    accountId: big.accountId,
    transactionCount: bigAccountRows + otherAccountRows * (tenantCount - 1),
    pageBytes: pageBody.length,
    samplePath,
    firstPagesFile,
    firstPagesCount: firstPages.length,
    laterPagesFile,
    laterPagesCount: laterPages.length,
    depth: {
      deepestPage: deepest.page,
      firstPageMs: median(timings.first),
      deepestPageMs: median(timings.deep),
    },
    feed: {
      accountId: feedAccountId,
      key: feedKey,
      cursor: feedCursor,
      changes: feedChanges,
      // Both ends as of the set-up: a run that crosses midnight UTC must not ask for 731 days.
      listFrom: daysBack(729),
      listTo: today,
    },
  }),
);

process.on("SIGTERM", async () => {
  await api.stop(true);
  await bare.stop(true);
  await services.database.close();
  await store.dispose();
  process.exit(0);
});
