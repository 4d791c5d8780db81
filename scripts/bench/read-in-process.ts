// Paired in-process A/B of the uncached /v1 reads: this tree's app and another tree's
// (`--compare-tree DIR`, e.g. a `git worktree add --detach` of the commit before), each on its own
// copy of one SQLite data set, answer the same rotation of URLs in alternating blocks
// (`createHttpApp().fetch` and reading the body; no sockets), and each block's CPU time per
// request is read: the main thread's (thread-cpu.ts) and the whole process's (every thread:
// allocator, JIT, GC helpers). Prints the median of the per-pair ratios this/other, so a loaded
// machine moves both sides alike. Every URL is asked once per side: nothing is served from the
// answer cache. `--control` puts this tree on both sides (the harness's own noise).
//
//   bun scripts/bench/read-in-process.ts --compare-tree /tmp/old [--pairs 16] [--block 200]
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { threadCpuMicros } from "./thread-cpu.ts";

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    "compare-tree": { type: "string" },
    control: { type: "boolean", default: false },
    // This tree alone, one block after another (to run under `bun --cpu-prof`).
    alone: { type: "boolean", default: false },
    only: { type: "string" },
    pairs: { type: "string", default: "16" },
    block: { type: "string", default: "200" },
  },
});
const thisTree = resolve(import.meta.dir, "../..");
const otherTree = values.control || values.alone ? thisTree : resolve(values["compare-tree"] ?? "");
if (!values.control && !values.alone && !values["compare-tree"]) {
  console.error("usage: read-in-process.ts --compare-tree DIR | --control | --alone");
  process.exit(2);
}
const pairs = Number(values.pairs);
const block = Number(values.block);

type Tree = {
  openServices: typeof import("../../src/server/services.ts").openServices;
  loadConfig: typeof import("../../src/config/config.ts").loadConfig;
  createHttpApp: typeof import("../../src/server/app.ts").createHttpApp;
  createLogger: typeof import("../../src/log/log.ts").createLogger;
  createStderrSink: typeof import("../../src/log/sink.ts").createStderrSink;
};
async function loadTree(root: string): Promise<Tree> {
  // Everything per app is built by factories, so --control may share the modules.
  const at = (path: string) => `${root}/src/${path}`;
  return {
    ...(await import(at("server/services.ts"))),
    ...(await import(at("config/config.ts"))),
    ...(await import(at("server/app.ts"))),
    ...(await import(at("log/log.ts"))),
    ...(await import(at("log/sink.ts"))),
  };
}

const systemClock = (await import("../../src/core/clock.ts")).systemClock;
const env = { SVC_MASTER_KEY: "0f".repeat(32) };
const configFor = (tree: Tree, dataDir: string) => ({
  ...tree.loadConfig({ env: {}, cwd: dataDir, flags: { dataDir } }),
  host: "127.0.0.1",
  port: 0,
  apiRateLimitPerMinute: 1_000_000_000,
});

// The data set: four accounts (40,000 rows, then 10,000 each), seeded with this tree.
const seedDir = mkdtempSync(join(tmpdir(), "svc-read-ab-"));
const { sql } = await import("drizzle-orm");
const { createServiceAccount } = await import("../../src/accounts/service-accounts.ts");
const { createApiKey } = await import("../../src/keys/api-keys.ts");
const { createAccountReads } = await import("../../src/api/accounts/read.ts");
const { createTransactionReads } = await import("../../src/api/transactions/read.ts");
const { nextTransactionCursor, resolveTransactionQuery } = await import(
  "../../src/api/transactions/query.ts"
);
const fixtures = await import("../../test/support/bank-fixtures.ts");
const seedTree = await loadTree(thisTree);
const seed = await seedTree.openServices(configFor(seedTree, seedDir), {
  clock: systemClock,
  log: seedTree.createLogger({ level: "warn", write: () => {} }),
  env,
});
const today = new Date().toISOString().slice(0, 10);
const daysBack = (days: number) =>
  new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);
const tenants: { accountId: string; key: string; serviceAccountId: string }[] = [];
for (let i = 0; i < 4; i++) {
  const owner = await createServiceAccount(seed.db, systemClock, {
    email: `ab${i}@example.com`,
    password: "benchmark password",
  });
  const bank = await fixtures.seedConnection(seed.db, systemClock, owner.account.id, {
    accounts: 1,
  });
  const accountId = bank.accountIds[0] as string;
  const rows = fixtures
    .generatedTransactions(i === 0 ? 40_000 : 10_000, { lastDate: today, perDay: 137 })
    .map((row, n) => (n < 400 && n % 4 === 0 ? { ...row, status: "pending" as const } : row));
  for (let start = 0; start < rows.length; start += 20_000) {
    await fixtures.insertTransactions(
      seed.db,
      systemClock,
      accountId,
      rows.slice(start, start + 20_000),
    );
  }
  const { key } = await createApiKey(seed.db, systemClock, { serviceAccountId: owner.account.id });
  tenants.push({ accountId, key, serviceAccountId: owner.account.id });
}
await seed.db.write((tx) => tx.rows(sql.raw("ANALYZE")));

// The rotations, as bench:api builds them: first pages over moving windows, and every cursor of
// a two-year window.
const path = (t: (typeof tenants)[number]) => `/v1/accounts/${t.accountId}/transactions`;
const firstPages: [string, string][] = [];
for (let days = 30; days < 90; days++)
  for (let toDays = 0; toDays < 30; toDays += 3)
    for (const limit of [60, 80, 100])
      for (const pending of [false, true])
        for (const t of tenants)
          firstPages.push([
            `${path(t)}?from=${daysBack(days)}&to=${daysBack(toDays)}&limit=${limit}${pending ? "&include_pending=true" : ""}`,
            t.key,
          ]);
const laterPages: [string, string][] = [];
const reads = createTransactionReads(seed.db, createAccountReads(seed.db));
for (const t of tenants) {
  for (const limit of [60, 70, 80, 90, 100]) {
    let query = resolveTransactionQuery({ from: daysBack(729), limit }, t.accountId, new Date());
    for (;;) {
      const page = await reads.listTransactions(t.serviceAccountId, t.accountId, query);
      const cursor = nextTransactionCursor(t.accountId, query, page);
      if (cursor === null) break;
      laterPages.push([`${path(t)}?limit=${limit}&cursor=${cursor}`, t.key]);
      query = resolveTransactionQuery({ cursor, limit }, t.accountId, new Date());
    }
  }
}
await seed.database.close();
const spread = <T>(list: T[]) => {
  let stride = 7919;
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  while (gcd(stride, list.length) !== 1) stride += 2;
  return list.map((_, i) => list[(i * stride) % list.length] as T);
};

async function side(root: string, name: string) {
  const dataDir = mkdtempSync(join(tmpdir(), `svc-read-ab-${name}-`));
  cpSync(seedDir, dataDir, { recursive: true });
  const tree = await loadTree(root);
  const sink = tree.createStderrSink();
  const services = await tree.openServices(configFor(tree, dataDir), {
    clock: systemClock,
    // As `svc serve` logs: an access-log line per request, to stderr in batches.
    log: tree.createLogger({ level: "info", write: sink.write, flush: sink.flush }),
    env,
  });
  const app = tree.createHttpApp(services);
  return {
    dataDir,
    services,
    /** CPU µs per request of one block: main thread, whole process. */
    async run(urls: [string, string][]) {
      const thread = threadCpuMicros();
      const processBefore = process.cpuUsage();
      for (const [url, key] of urls) {
        const response = await app.fetch(
          new Request(`http://svc.test${url}`, { headers: { Authorization: `Bearer ${key}` } }),
        );
        if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
        await response.arrayBuffer();
      }
      const used = process.cpuUsage(processBefore);
      return {
        thread: (threadCpuMicros() - thread) / urls.length,
        process: (used.user + used.system) / urls.length,
      };
    },
  };
}

const median = (list: number[]) => [...list].sort((a, b) => a - b)[list.length >> 1] as number;
const mine = await side(thisTree, "this");
const other = values.alone ? mine : await side(otherTree, "other");
for (const [name, rotation] of [
  ["first pages", spread(firstPages)],
  ["cursor pages", spread(laterPages)],
] as const) {
  if (values.only && !name.startsWith(values.only)) continue;
  const needed = (pairs + 1) * block;
  if (rotation.length < needed) throw new Error(`${name}: ${rotation.length} URLs < ${needed}`);
  const rows: { other: number; mine: number; ratio: number; processRatio: number }[] = [];
  for (let pair = 0; pair <= pairs; pair++) {
    const urls = rotation.slice(pair * block, (pair + 1) * block);
    // Alternating which side goes first, so neither always runs on caches the other warmed.
    if (values.alone) {
      await mine.run(urls);
      continue;
    }
    const first = pair % 2 === 0 ? other : mine;
    const a = await first.run(urls);
    const b = await (first === other ? mine : other).run(urls);
    const [o, m] = first === other ? [a, b] : [b, a];
    if (pair > 0) {
      rows.push({
        other: o.thread,
        mine: m.thread,
        ratio: m.thread / o.thread,
        processRatio: m.process / o.process,
      });
    }
  }
  if (values.alone) continue;
  console.log(
    JSON.stringify({
      target: name,
      pairs,
      block,
      otherThreadMicros: Math.round(median(rows.map((r) => r.other))),
      thisThreadMicros: Math.round(median(rows.map((r) => r.mine))),
      ratioThread: Number(median(rows.map((r) => r.ratio)).toFixed(3)),
      ratioProcess: Number(median(rows.map((r) => r.processRatio)).toFixed(3)),
    }),
  );
}
for (const s of new Set([other, mine])) {
  await s.services.database.close();
  rmSync(s.dataDir, { recursive: true, force: true });
}
rmSync(seedDir, { recursive: true, force: true });
process.exit(0);
