// bun run bench:cluster — several serving processes on one database: 1, 2 and 4
// workers (`svc serve --workers N`) on SQLite, and with --database-url 1, 2 and 4 instances on
// PostgreSQL. For each: deliveries/s draining a backlog written before the servers start (their
// start-up included), read-API req/s (wrk on a cached transactions page; one wrk per instance
// when instances listen on ports of their own), and first-attempt latency p50/p99 at a fixed rate with events written one per
// transaction by another process. Baselines measured in the same run: a bare Bun.serve answering
// a constant (wrk) and the receiver's ceiling (a plain HTTPS client, no database).
//
//   --seconds S           length of each measured phase (default 5)
//   --workers 1,4,16      the process counts to run (default 1,2,4; the first is the reference)
//   --database-url URL    also run the PostgreSQL configurations on a fresh database there
//   --rounds R            rounds of every configuration, interleaved (default 1); medians
//   --compare-tree DIR    also run every configuration with the servers of another checkout
//                         (e.g. `git worktree add /tmp/old HEAD~1`, with its node_modules), in
//                         the same rounds: before/after in one run
//
// Besides rates it reads the servers' CPU time (/proc, the whole process tree) per delivery and
// per read, and prints PostgreSQL's rates as shares of SQLite's for the same process count.
import { readdirSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { eq } from "drizzle-orm";
import { createServiceAccount } from "../../src/accounts/service-accounts.ts";
import { loadConfig } from "../../src/config/config.ts";
import { systemClock } from "../../src/core/clock.ts";
import { createApiKey } from "../../src/keys/api-keys.ts";
import { silentLogger } from "../../src/log/log.ts";
import { openServices, type Services } from "../../src/server/services.ts";
import { webhookContext } from "../../src/webhooks/delivery/context.ts";
import { registerEndpoint } from "../../src/webhooks/endpoints/registration.ts";
import { recordAccountEvents } from "../../src/webhooks/events/write.ts";
import {
  generatedTransactions,
  insertTransactions,
  seedConnection,
} from "../../test/support/bank-fixtures.ts";
import { createTestPki, loopbackNames } from "../../test/support/pki.ts";
import { openBenchDatabase } from "./bench-database.ts";
import { freePort, loadAverage, median } from "./bench-util.ts";

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    seconds: { type: "string", default: "5" },
    workers: { type: "string", default: "1,2,4" },
    "database-url": { type: "string" },
    rounds: { type: "string", default: "1" },
    "compare-tree": { type: "string" },
  },
});
const rounds = Number(values.rounds);
const seconds = Number(values.seconds);
const workerCounts = values.workers.split(",").map(Number);
const masterKey = "0f".repeat(32);
const repoRoot = join(import.meta.dir, "../..");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
const now = () => performance.timeOrigin + performance.now();
if (!Bun.which("wrk")) throw new Error("bench:cluster needs wrk (apt-get install -y wrk)");

// --- the receiver (its own process) ----------------------------------------------------------
const pki = await createTestPki();
const cert = await pki.issue(loopbackNames);
const ca = await Bun.file(pki.caFile).text();
const receiver = Bun.spawn(
  [
    process.execPath,
    join(import.meta.dir, "receiver.ts"),
    "--cert",
    cert.certFile,
    "--key",
    cert.keyFile,
  ],
  { stdout: "pipe", stderr: "inherit" },
);
const banner = await (async () => {
  const reader = receiver.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) text += new TextDecoder().decode((await reader.read()).value);
  reader.releaseLock();
  return text;
})();
const receiverUrl = `https://127.0.0.1:${banner.match(/PORT (\d+)/)?.[1]}`;
const control = async <T>(path: string) =>
  (await (await fetch(`${receiverUrl}${path}`, { method: "POST", tls: { ca } })).json()) as T;
const receiverCount = async () => (await control<{ count: number }>("/_stats")).count;
const drain = () => control<[string, number][]>("/_drain");

// --- baselines ---------------------------------------------------------------------------------
function wrk(url: string, connections: number, headers: string[] = []): Promise<number> {
  const child = Bun.spawn(
    ["wrk", "-t1", `-c${connections}`, `-d${seconds}s`, ...headers.flatMap((h) => ["-H", h]), url],
    { stdout: "pipe", stderr: "pipe" },
  );
  return new Response(child.stdout).text().then((out) => {
    if (/Non-2xx/.test(out)) throw new Error(`wrk saw errors:\n${out}`);
    return Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
  });
}

async function bareBaseline(): Promise<number> {
  const bare = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("ok") });
  const rps = await wrk(`http://127.0.0.1:${bare.port}/`, 32);
  await bare.stop(true);
  return rps;
}

async function receiverCeiling(): Promise<number> {
  const body = JSON.stringify({ id: "ceiling", type: "account.transactions.available" });
  const before = await receiverCount();
  const started = now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (now() < until) {
        await fetch(`${receiverUrl}/ceiling`, { method: "POST", body, tls: { ca } });
      }
    }),
  );
  const perSecond = ((await receiverCount()) - before) / ((now() - started) / 1000);
  await drain();
  return perSecond;
}

// --- one configuration -------------------------------------------------------------------------
interface Result {
  label: string;
  readRps: number;
  deliveriesPerSecond: number;
  /** The servers' CPU time (every process of their trees) per read and per delivery. */
  cpuUsPerRead: number;
  cpuUsPerDelivery: number;
  p50Ms: number;
  p99Ms: number;
}

const clockTicksPerSecond = 100;

/** CPU time (ms) of the given processes and all their descendants, from /proc. */
function treeCpuMs(roots: number[]): number {
  const children = new Map<number, number[]>();
  const ticks = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const pid = Number(entry);
      const ppid = Number(fields[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), pid]);
      ticks.set(pid, Number(fields[11]) + Number(fields[12]));
    } catch {} // gone meanwhile
  }
  let total = 0;
  const queue = [...roots];
  for (let pid = queue.pop(); pid !== undefined; pid = queue.pop()) {
    total += ticks.get(pid) ?? 0;
    queue.push(...(children.get(pid) ?? []));
  }
  return (total * 1000) / clockTicksPerSecond;
}

async function setUp(store: Awaited<ReturnType<typeof openBenchDatabase>>) {
  const config = loadConfig({
    env: {},
    cwd: store.dataDir,
    flags: {
      dataDir: store.dataDir,
      ...(store.databaseUrl ? { databaseUrl: store.databaseUrl } : {}),
    },
  });
  const services = await openServices(
    { ...config, unsafeAllowPrivateTargets: true },
    { log: silentLogger, env: { SVC_MASTER_KEY: masterKey } },
  );
  const { account } = await createServiceAccount(services.db, systemClock, {
    email: "bench@example.com",
    password: "benchmark password",
  });
  const ctx = webhookContext(services);
  const accountIds: string[] = [];
  for (let i = 0; i < 8; i++) {
    const owner =
      i === 0
        ? account
        : (
            await createServiceAccount(services.db, systemClock, {
              email: `bench${i}@example.com`,
              password: "benchmark password",
            })
          ).account;
    const { endpoint } = await registerEndpoint(ctx, {
      serviceAccountId: owner.id,
      url: `${receiverUrl}/hooks/${i}`,
    });
    const { webhookEndpoints } = services.db.t;
    await services.db.write((tx) =>
      tx
        .update(webhookEndpoints)
        .set({ verifiedAt: new Date() })
        .where(eq(webhookEndpoints.id, endpoint.id)),
    );
    accountIds.push(owner.id);
  }
  ctx.close();
  const bank = await seedConnection(services.db, systemClock, account.id, { accounts: 1 });
  const today = new Date().toISOString().slice(0, 10);
  await insertTransactions(
    services.db,
    systemClock,
    bank.accountIds[0] as string,
    generatedTransactions(5_000, { lastDate: today, perDay: 137 }),
  );
  const { key } = await createApiKey(services.db, systemClock, { serviceAccountId: account.id });
  return {
    services,
    accountIds,
    key,
    path: `/v1/accounts/${bank.accountIds[0]}/transactions?limit=100`,
  };
}

async function writeEvents(services: Services, accountIds: string[], count: number, perTx: number) {
  let next = 0;
  for (let written = 0; written < count; written += perTx) {
    await services.db.write((tx) =>
      recordAccountEvents(
        tx,
        systemClock,
        Array.from({ length: Math.min(perTx, count - written) }, () => {
          const id = accountIds[next++ % accountIds.length] as string;
          return {
            serviceAccountId: id,
            type: "account.transactions.available" as const,
            data: { account_id: id, fetched_at: new Date().toISOString(), new_count: 1 },
          };
        }),
      ),
    );
    services.outbox.notify();
  }
}

async function runConfiguration(
  label: string,
  processes: number,
  databaseUrl?: string,
  tree = repoRoot,
): Promise<Result> {
  const store = await openBenchDatabase(databaseUrl);
  const { services, accountIds, key, path } = await setUp(store);
  // The backlog is written before any server starts, so the drain below measures delivery alone.
  const backlog = Math.round(seconds * 6_000);
  await writeEvents(services, accountIds, backlog, 100);
  const countBefore = await receiverCount();
  const env = {
    ...process.env,
    SVC_DATA_DIR: store.dataDir,
    SVC_MASTER_KEY: masterKey,
    SVC_LOG_LEVEL: "warn",
    SVC_DELIVERY_CA_FILE: pki.caFile,
    SVC_UNSAFE_ALLOW_PRIVATE_TARGETS: "true",
    SVC_API_RATE_LIMIT_PER_MINUTE: "0",
    ...(store.databaseUrl ? { SVC_DATABASE_URL: store.databaseUrl } : {}),
  };
  // SQLite: one supervisor with N workers on one port; PostgreSQL: N instances, a port each.
  const ports: number[] = [];
  const servers: ReturnType<typeof Bun.spawn>[] = [];
  const instanceCount = databaseUrl ? processes : 1;
  for (let i = 0; i < instanceCount; i++) {
    const port = await freePort();
    ports.push(port);
    const args = ["serve", "--port", String(port)];
    if (!databaseUrl) args.push("--workers", String(processes));
    servers.push(
      Bun.spawn([process.execPath, join(tree, "src/main.ts"), ...args], {
        env,
        stdout: "ignore",
        stderr: "inherit",
      }),
    );
  }
  const started = now();
  const pids = servers.map((server) => server.pid);
  try {
    for (const port of ports) {
      for (;;) {
        try {
          if ((await fetch(`http://127.0.0.1:${port}/readyz`)).ok) break;
        } catch {}
        await sleep(50);
      }
    }
    // Deliveries: the backlog drained, from the servers' start (start-up included).
    while ((await receiverCount()) - countBefore < backlog && now() < started + 120_000) {
      await sleep(50);
    }
    const delivered = (await receiverCount()) - countBefore;
    const deliveriesPerSecond = delivered / ((now() - started) / 1000);
    const deliveryCpuMs = treeCpuMs(pids);
    await drain();

    // Read API: one wrk per listening port, 32 connections in all.
    const auth = [`Authorization: Bearer ${key}`];
    const readCpuBefore = treeCpuMs(pids);
    const rates = await Promise.all(
      ports.map((port) =>
        wrk(`http://127.0.0.1:${port}${path}`, Math.max(1, Math.floor(32 / ports.length)), auth),
      ),
    );
    const readRps = rates.reduce((a, b) => a + b, 0);
    const cpuUsPerRead = ((treeCpuMs(pids) - readCpuBefore) * 1000) / (readRps * seconds);

    // First-attempt latency: 500 events/s, one transaction each, written by this process.
    const written = new Map<string, number>();
    const until = now() + seconds * 1000;
    let produced = 0;
    const latencyStart = now();
    while (now() < until) {
      const due = Math.floor(((now() - latencyStart) / 1000) * 500) - produced;
      for (let i = 0; i < due; i++) {
        const id = accountIds[produced % accountIds.length] as string;
        const [event] = await services.db.write((tx) =>
          recordAccountEvents(tx, systemClock, [
            {
              serviceAccountId: id,
              type: "account.transactions.available" as const,
              data: { account_id: id, fetched_at: new Date().toISOString(), new_count: 1 },
            },
          ]),
        );
        written.set(event?.eventId as string, now());
        services.outbox.notify();
        produced++;
      }
      await sleep(1);
    }
    await sleep(2_000);
    const latencies = (await drain())
      .filter(([id]) => written.has(id))
      .map(([id, at]) => at - (written.get(id) as number))
      .sort((a, b) => a - b);
    return {
      label,
      readRps,
      deliveriesPerSecond,
      cpuUsPerRead,
      cpuUsPerDelivery: (deliveryCpuMs * 1000) / delivered,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
    };
  } finally {
    for (const server of servers) server.kill("SIGTERM");
    await Promise.all(servers.map((s) => s.exited));
    await services.database.close();
    await store.dispose();
  }
}

try {
  const bare = await bareBaseline();
  const ceiling = await receiverCeiling();
  console.log(
    `baselines (same run): bare Bun.serve ${Math.round(bare)} req/s; receiver ceiling ${Math.round(ceiling)} deliveries/s (plain HTTPS client, 64 concurrent)\n`,
  );
  const configurations: { label: string; n: number; url?: string; tree?: string }[] = [];
  const trees: [string, string | undefined][] = values["compare-tree"]
    ? [
        ["", undefined],
        [" (compare tree)", values["compare-tree"]],
      ]
    : [["", undefined]];
  for (const n of workerCounts) {
    for (const [suffix, tree] of trees) {
      configurations.push({
        label: `SQLite, --workers ${n}${suffix}`,
        n,
        ...(tree ? { tree } : {}),
      });
      if (values["database-url"]) {
        configurations.push({
          label: `PostgreSQL, ${n} instance(s)${suffix}`,
          n,
          url: values["database-url"],
          ...(tree ? { tree } : {}),
        });
      }
    }
  }
  // Every configuration once per round, so slow moments of a shared machine fall on all alike.
  const runs = new Map<string, Result[]>();
  for (let round = 1; round <= rounds; round++) {
    for (const c of configurations) {
      const result = await runConfiguration(c.label, c.n, c.url, c.tree);
      runs.set(c.label, [...(runs.get(c.label) ?? []), result]);
      console.log(
        `round ${round}: ${c.label}: ${Math.round(result.readRps)} reads/s, ${Math.round(result.deliveriesPerSecond)} deliveries/s, CPU ${result.cpuUsPerRead.toFixed(0)} µs per read, ${result.cpuUsPerDelivery.toFixed(0)} µs per delivery (load average ${loadAverage()})`,
      );
    }
  }
  const results: Result[] = configurations.map(({ label }) => {
    const all = runs.get(label) as Result[];
    const of = (field: Exclude<keyof Result, "label">) => median(all.map((r) => r[field]));
    return {
      label,
      readRps: of("readRps"),
      deliveriesPerSecond: of("deliveriesPerSecond"),
      cpuUsPerRead: of("cpuUsPerRead"),
      cpuUsPerDelivery: of("cpuUsPerDelivery"),
      p50Ms: of("p50Ms"),
      p99Ms: of("p99Ms"),
    };
  });
  console.log(
    `\nmedians of ${rounds} round(s):\nconfiguration              read req/s (vs bare)   deliveries/s (vs ceiling)   first attempt p50 / p99   server CPU per read / per delivery`,
  );
  for (const r of results) {
    console.log(
      `${r.label.padEnd(26)} ${Math.round(r.readRps).toString().padStart(8)} (${((100 * r.readRps) / bare).toFixed(1).padStart(5)} %)   ${Math.round(r.deliveriesPerSecond).toString().padStart(8)} (${((100 * r.deliveriesPerSecond) / ceiling).toFixed(1).padStart(5)} %)      ${r.p50Ms.toFixed(1)} / ${r.p99Ms.toFixed(1)} ms   ${r.cpuUsPerRead.toFixed(0)} / ${r.cpuUsPerDelivery.toFixed(0)} µs`,
    );
  }
  // The per-process targets are stated as PostgreSQL's rates over SQLite's, same process count
  // (medians of each; the CPU figures are the servers' own, PostgreSQL's server excluded).
  if (values["database-url"]) {
    console.log("\nPostgreSQL as a share of SQLite (same run, same process count):");
    for (const n of workerCounts) {
      for (const [suffix] of trees) {
        const lite = results.find((r) => r.label === `SQLite, --workers ${n}${suffix}`);
        const pg = results.find((r) => r.label === `PostgreSQL, ${n} instance(s)${suffix}`);
        if (!lite || !pg) continue;
        console.log(
          `  ${n} process(es)${suffix}: deliveries ${((100 * pg.deliveriesPerSecond) / lite.deliveriesPerSecond).toFixed(1)} % (target >= 60 %), cached reads ${((100 * pg.readRps) / lite.readRps).toFixed(1)} % (target >= 50 %); server CPU per delivery ${(pg.cpuUsPerDelivery / lite.cpuUsPerDelivery).toFixed(2)}x SQLite's, per read ${(pg.cpuUsPerRead / lite.cpuUsPerRead).toFixed(2)}x`,
        );
      }
    }
  }
  if (values["compare-tree"]) {
    console.log("\nthis tree as a share of the compare tree (same run):");
    for (const r of results.filter((x) => !x.label.endsWith("(compare tree)"))) {
      const old = results.find((x) => x.label === `${r.label} (compare tree)`);
      if (!old) continue;
      console.log(
        `  ${r.label.padEnd(26)} reads ${((100 * r.readRps) / old.readRps).toFixed(1)} %, deliveries ${((100 * r.deliveriesPerSecond) / old.deliveriesPerSecond).toFixed(1)} %; CPU per read ${(r.cpuUsPerRead / old.cpuUsPerRead).toFixed(2)}x, per delivery ${(r.cpuUsPerDelivery / old.cpuUsPerDelivery).toFixed(2)}x`,
      );
    }
  }
  // The serial share each engine shows (Karp-Flatt: e = (1/speedup - 1/n) / (1 - 1/n), speedup
  // against the first configuration of the same engine): the part of the work that did not
  // spread over the processes. It includes the serial parts of the model in BENCHMARKS.md
  // (SQLite's writer lock, PostgreSQL's commits) and, on a machine with fewer free cores than
  // processes, the processes' contention for cores, so it is read beside the core count.
  console.log(
    `\nserial share measured (Karp-Flatt, against the first configuration of each engine; ${availableParallelism()} cores here, wrk, the receiver and the writer included on them):`,
  );
  for (const engine of ["SQLite", "PostgreSQL"]) {
    const rows = results.filter(
      (r) => r.label.startsWith(engine) && !r.label.endsWith("(compare tree)"),
    );
    const [first, ...rest] = rows;
    if (!first) continue;
    const n0 = workerCounts[0] as number;
    rest.forEach((r, i) => {
      const n = (workerCounts[i + 1] as number) / n0;
      const share = (rate: number, base: number) => (base / rate - 1 / n) / (1 - 1 / n);
      console.log(
        `  ${r.label.padEnd(26)} deliveries: speedup ${(r.deliveriesPerSecond / first.deliveriesPerSecond).toFixed(2)}x of ${n}x, serial share ${(100 * share(r.deliveriesPerSecond, first.deliveriesPerSecond)).toFixed(0)} %; reads: speedup ${(r.readRps / first.readRps).toFixed(2)}x, serial share ${(100 * share(r.readRps, first.readRps)).toFixed(0)} %`,
      );
    });
  }
} finally {
  receiver.kill("SIGTERM");
  await receiver.exited;
}
