// bun run bench:delivery — end-to-end webhook delivery benchmark.
//
// Everything runs on this machine over loopback HTTPS with a throwaway CA; the receiver is a
// separate process (scripts/bench/receiver.ts) that records when each event id arrived.
//   1. ceiling:    a plain keep-alive HTTPS client (node:https, same concurrency and body) ->
//                  the receiver, no database: what the receiver and this machine can do at all
//                  (the targets' baseline); beside it a plain client over a Bun fetch session,
//                  the sender's own transport since 2026-12-04, printed as a stricter reference;
//   2. sender:     the service's sender alone (SSRF check, signing, TLS context) -> receiver;
//   3. throughput: the real dispatcher (startWebhookDispatcher, as `svc serve` runs it) draining a
//                  backlog written beforehand by another process (delivery-producer.ts, 50
//                  events per transaction, as a sync touching many accounts writes), for at most
//                  --seconds; printed as a share of the plain client (target >= 50 %), with
//                  the service's CPU per delivery and, on SQLite, the write lock's held time
//                  per claim and per outcome batch (CPU and wall);
//   4. latency:    events written at a fixed rate (--rate) by another process (delivery-producer.ts
//                  --rate: one account's sync per transaction, --per-transaction events each,
//                  default 1, then the outbox notice), for --seconds: event committed -> receiver
//                  got it, first attempts, p50/p90/p99 (target p99 <= 20 ms at 2,000/s).
// `--database-url postgres://…` runs the service on a fresh database on that server.
// `--phases sender,throughput,latency` picks phases (profiling one); `--backlog N` sizes the
// throughput phase's backlog when the sender phase is skipped. Results go to BENCHMARKS.md.
import https from "node:https";
import { loadavg } from "node:os";
import { join } from "node:path";
import tls from "node:tls";
import { parseArgs } from "node:util";
import { eq, sql } from "drizzle-orm";
import { createServiceAccount } from "../../src/accounts/service-accounts.ts";
import { loadConfig } from "../../src/config/config.ts";
import { systemClock } from "../../src/core/clock.ts";
import { startBackgroundCheckpoints } from "../../src/db/sqlite-checkpoints.ts";
import { openServices } from "../../src/server/services.ts";
import { startWebhookDispatcher } from "../../src/webhooks/delivery/background.ts";
import { webhookContext } from "../../src/webhooks/delivery/context.ts";
import type { Dispatcher } from "../../src/webhooks/delivery/dispatcher.ts";
import { createSender } from "../../src/webhooks/delivery/sender.ts";
import { registerEndpoint } from "../../src/webhooks/endpoints/registration.ts";
import { buildEvent } from "../../src/webhooks/events/write.ts";
import { createTestPki, loopbackNames } from "../../test/support/pki.ts";
import { openBenchDatabase } from "./bench-database.ts";

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    seconds: { type: "string", default: "60" },
    "ceiling-seconds": { type: "string", default: "10" },
    "ceiling-rounds": { type: "string", default: "3" },
    rate: { type: "string", default: "2000" },
    "per-transaction": { type: "string", default: "1" },
    endpoints: { type: "string", default: "16" },
    concurrency: { type: "string", default: "64" },
    "endpoint-concurrency": { type: "string", default: "8" },
    "database-url": { type: "string" },
    phases: { type: "string", default: "sender,throughput,latency" },
    backlog: { type: "string" },
  },
});
/** Which phases run: "sender" (the plain client and the sender alone), "throughput", "latency". */
const phases = new Set((values.phases ?? "").split(","));
const seconds = Number(values.seconds);
const ceilingSeconds = Number(values["ceiling-seconds"]);
const ceilingRoundCount = Number(values["ceiling-rounds"]);
const rate = Number(values.rate);
const perTransaction = Number(values["per-transaction"]);
const endpointCount = Number(values.endpoints);
const concurrency = Number(values.concurrency);
const endpointConcurrency = Number(values["endpoint-concurrency"]);

const now = () => performance.timeOrigin + performance.now();
const cpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

// --- receiver process -------------------------------------------------------------------------
const pki = await createTestPki();
const cert = await pki.issue(loopbackNames);
const receiverProcess = Bun.spawn(
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
const reader = receiverProcess.stdout.getReader();
let banner = "";
while (!banner.includes("\n")) {
  const { value, done } = await reader.read();
  if (done) throw new Error("receiver exited before it listened");
  banner += new TextDecoder().decode(value);
}
const port = Number(banner.match(/PORT (\d+)/)?.[1]);
const secureContext = tls.createSecureContext({
  ca: [...tls.rootCertificates, await Bun.file(pki.caFile).text()],
});
const controlAgent = new https.Agent({ keepAlive: true });
/** Node accepts a prebuilt secure context per request; its types omit it. */
type TlsRequestOptions = https.RequestOptions & { secureContext?: tls.SecureContext };
function control<T>(path: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const options: TlsRequestOptions = {
      host: "127.0.0.1",
      port,
      path,
      method: "POST",
      agent: controlAgent,
      secureContext,
    };
    const req = https.request(options, (res) => {
      let text = "";
      res.on("data", (chunk) => {
        text += chunk;
      });
      res.on("end", () => resolve(JSON.parse(text) as T));
    });
    req.on("error", reject);
    req.end();
  });
}
const receiverStats = () => control<{ count: number; cpuMs: number }>("/_stats");
const drain = () => control<[string, number][]>("/_drain");

const sampleBody = buildEvent(
  "account.transactions.available",
  {
    account_id: crypto.randomUUID(),
    fetched_at: new Date().toISOString(),
    new_count: 3,
  },
  new Date(),
).body;

/** The delivery headers a plain client sends (a fixed signature: no signing). */
const plainHeaders = () => ({
  "Content-Type": "application/json",
  "User-Agent": "Svc-Webhooks/1",
  "Svc-Webhook-Id": crypto.randomUUID(),
  "Svc-Webhook-Timestamp": String(Math.floor(Date.now() / 1000)),
  "Svc-Webhook-Signature": `v1=${"0".repeat(64)}`,
});

// --- 1. ceiling: plain client ---------------------------------------------------------------
async function ceiling() {
  const agent = new https.Agent({ keepAlive: true, maxFreeSockets: 256 });
  const post = () =>
    new Promise<void>((resolve, reject) => {
      const options: TlsRequestOptions = {
        host: "127.0.0.1",
        port,
        path: "/plain",
        method: "POST",
        agent,
        secureContext,
        headers: {
          ...plainHeaders(),
          "Content-Length": String(Buffer.byteLength(sampleBody)),
        },
      };
      const req = https.request(options, (res) => {
        res.resume();
        resolve();
      });
      req.on("error", reject);
      req.end(sampleBody);
    });
  const result = await closedLoop(post);
  agent.destroy();
  return result;
}

// --- 1a. a plain client over the sender's transport (a Bun fetch session, no database) --------
async function ceilingOverFetch() {
  const session = new Bun.FetchSession({
    tls: { ca: [...tls.rootCertificates, await Bun.file(pki.caFile).text()] },
  });
  const post = async () => {
    const response = await session.fetch(`https://127.0.0.1:${port}/plain`, {
      method: "POST",
      body: sampleBody,
      redirect: "manual",
      decompress: false,
      headers: plainHeaders(),
    });
    await response.arrayBuffer();
  };
  const result = await closedLoop(post);
  session.close();
  return result;
}

/** Runs `request` from `concurrency` loops for --ceiling-seconds; rates per second. */
async function closedLoop(request: () => Promise<void>) {
  const before = await receiverStats();
  const cpuBefore = cpuMs();
  const started = now();
  const until = started + ceilingSeconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (now() < until) {
        await request();
        done++;
      }
    }),
  );
  const elapsed = (now() - started) / 1000;
  const after = await receiverStats();
  await drain();
  return {
    perSecond: done / elapsed,
    receiverCpu: (after.cpuMs - before.cpuMs) / 1000 / elapsed,
    clientCpu: (cpuMs() - cpuBefore) / 1000 / elapsed,
  };
}

// --- 1b. the service's sender alone (no database) ---------------------------------------------
async function senderAlone() {
  const sender = createSender({ clock: systemClock, allowPrivate: true, caFile: pki.caFile });
  const result = await closedLoop(async () => {
    const sent = await sender.send({
      url: `https://127.0.0.1:${port}/sender`,
      eventId: crypto.randomUUID(),
      body: sampleBody,
      secret: "whsec_benchmark",
    });
    if (!sent.ok) throw new Error(`sender failed: ${sent.errorMessage}`);
  });
  sender.close();
  return result;
}

// --- the service --------------------------------------------------------------------------
const store = await openBenchDatabase(values["database-url"]);
const dataDir = store.dataDir;
const config = {
  ...loadConfig({
    env: {},
    cwd: dataDir,
    flags: { dataDir, ...(store.databaseUrl ? { databaseUrl: store.databaseUrl } : {}) },
  }),
  deliveryCaFile: pki.caFile,
  unsafeAllowPrivateTargets: true,
  deliveryConcurrency: concurrency,
  endpointConcurrency,
  logLevel: "warn" as const,
};
const services = await openServices(config);
// As `svc serve` runs (src/server/runtime.ts): SQLite's checkpoints in a worker thread.
const checkpoints = startBackgroundCheckpoints(services.database);
const { deliveries, webhookEndpoints } = services.db.t;
/** SQLite's write-lock time per purpose so far (PostgreSQL has no such single lock: empty). */
const lockStats = () => services.database.writeLockStats?.() ?? {};
/**
 * The write lock held per claim and per outcome batch between two readings, and per delivery:
 * the serial part every process on one SQLite file shares (BENCHMARKS.md, "Past two cores").
 */
function lockHeldBetween(
  before: ReturnType<typeof lockStats>,
  after: ReturnType<typeof lockStats>,
  delivered: number,
  elapsedS: number,
): string {
  if (Object.keys(after).length === 0) return "writer lock: not measured on this engine";
  const parts: string[] = [];
  let totalMs = 0;
  let totalCpuMs = 0;
  for (const [purpose, label] of [
    ["delivery_claim", "claim"],
    ["delivery_outcomes", "outcome batch"],
    ["delivery_turn", "turn (outcome batch and claim, SQLite)"],
  ] as const) {
    const zero = { transactions: 0, heldMs: 0, heldCpuMs: 0 };
    const a = after[purpose] ?? zero;
    const b = before[purpose] ?? zero;
    const n = Math.max(1, a.transactions - b.transactions);
    if (a.transactions === b.transactions) continue;
    const ms = a.heldMs - b.heldMs;
    const cpu = a.heldCpuMs - b.heldCpuMs;
    totalMs += ms;
    totalCpuMs += cpu;
    parts.push(
      `${round((cpu * 1000) / n)} µs CPU (${round((ms * 1000) / n)} µs wall) per ${label} of ${round(delivered / n)} deliveries`,
    );
  }
  return `writer lock held: ${parts.join(", ")}; per delivery ${round((totalCpuMs * 1000) / Math.max(1, delivered))} µs CPU (${round((totalMs * 1000) / Math.max(1, delivered))} µs wall), held ${round((100 * totalMs) / (elapsedS * 1000))}% of the time`;
}
const accountIds: string[] = [];
const ctx = webhookContext(services);
for (let i = 0; i < endpointCount; i++) {
  const { account } = await createServiceAccount(services.db, services.clock, {
    email: `bench${i}@example.com`,
    password: "bench password 1234",
  });
  const { endpoint } = await registerEndpoint(ctx, {
    serviceAccountId: account.id,
    url: `https://127.0.0.1:${port}/hooks/${i}`,
  });
  // Set-up only: verification is exercised by the tests, not measured here.
  await services.db.write((tx) =>
    tx
      .update(webhookEndpoints)
      .set({ verifiedAt: new Date() })
      .where(eq(webhookEndpoints.id, endpoint.id)),
  );
  accountIds.push(account.id);
}
ctx.close();

const pendingCount = async () =>
  (
    await services.db
      .select({ n: sql<number>`count(*)` })
      .from(deliveries)
      .where(eq(deliveries.status, "pending"))
  )[0]?.n ?? 0;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitForDrain(timeoutMs: number): Promise<void> {
  const deadline = now() + timeoutMs;
  while ((await pendingCount()) > 0 && now() < deadline) await sleep(20);
}

// --- 2. throughput: a backlog written beforehand, drained by the dispatcher --------------------
/** Runs delivery-producer.ts (a process of its own) on this database with `args`; its report. */
async function runProducer(args: string[]): Promise<string> {
  const producer = Bun.spawn(
    [
      process.execPath,
      join(import.meta.dir, "delivery-producer.ts"),
      "--data-dir",
      dataDir,
      ...(store.databaseUrl ? ["--database-url", store.databaseUrl] : []),
      "--accounts",
      accountIds.join(","),
      ...args,
    ],
    { stdout: "pipe", stderr: "inherit" },
  );
  const report = await new Response(producer.stdout).text();
  if ((await producer.exited) !== 0) throw new Error("the event producer failed");
  return report;
}

/** Writes `events` events (one delivery each) from a process of its own (delivery-producer.ts). */
async function fillBacklog(events: number): Promise<void> {
  await runProducer(["--fill", String(events)]);
}

async function throughput(dispatcher: Dispatcher) {
  let samples = 0;
  let inFlightSum = 0;
  const sampler = setInterval(() => {
    samples++;
    inFlightSum += dispatcher.inFlight();
  }, 5);
  const before = await receiverStats();
  const locksBefore = lockStats();
  const cpuBefore = cpuMs();
  const started = now();
  dispatcher.wake();
  // Measured while the backlog lasts, for at most --seconds; checked every 50 ms, since the end is
  // seen only at a check (every 250 ms put ±8 % on a 3 s drain: BENCHMARKS.md, 2026-12-02).
  while (now() < started + seconds * 1000 && (await pendingCount()) > 0) await sleep(50);
  const elapsed = (now() - started) / 1000;
  const after = await receiverStats();
  const cpu = (cpuMs() - cpuBefore) / 1000 / elapsed;
  const locks = lockHeldBetween(locksBefore, lockStats(), after.count - before.count, elapsed);
  clearInterval(sampler);
  await waitForDrain(60_000);
  await drain();
  return {
    locks,
    elapsed,
    averageInFlight: inFlightSum / samples,
    perSecond: (after.count - before.count) / elapsed,
    serviceCpu: cpu,
    receiverCpu: (after.cpuMs - before.cpuMs) / 1000 / elapsed,
  };
}

// --- 3. latency at a fixed rate ----------------------------------------------------------------
/**
 * Events at --rate from another process (delivery-producer.ts --rate: one account's sync per
 * transaction, then the outbox notice, as `svc sync` writes), for --seconds; first attempts'
 * latency from each event's commit (the producer's clock) to the receiver's arrival (the
 * receiver's), both performance.timeOrigin + now() on this host.
 */
async function latency() {
  const timesFile = join(dataDir, "latency-commits.txt");
  const before = await receiverStats();
  const locksBefore = lockStats();
  const cpuBefore = cpuMs();
  const started = now();
  const report = JSON.parse(
    await runProducer([
      "--rate",
      String(rate),
      "--seconds",
      String(seconds),
      "--per-transaction",
      String(perTransaction),
      "--times-file",
      timesFile,
    ]),
  ) as { written: number; offeredPerSecond: number; cpuMs: number; lockHeldShare?: number };
  const elapsed = (now() - started) / 1000;
  const after = await receiverStats();
  const cpu = (cpuMs() - cpuBefore) / 1000 / elapsed;
  const locks = lockHeldBetween(locksBefore, lockStats(), after.count - before.count, elapsed);
  await waitForDrain(30_000);
  const arrivals = await drain();
  const written = new Map<string, number>();
  for (const line of (await Bun.file(timesFile).text()).split("\n")) {
    const [id, at] = line.split(" ");
    if (id && at) written.set(id, Number(at));
  }
  const latencies: number[] = [];
  for (const [id, at] of arrivals) {
    const at0 = written.get(id);
    if (at0 !== undefined) {
      latencies.push(at - at0);
      written.delete(id);
    }
  }
  latencies.sort((a, b) => a - b);
  return {
    locks,
    offered: report.offeredPerSecond,
    producerCpu: report.cpuMs / 1000 / elapsed,
    producerLockShare: report.lockHeldShare,
    delivered: (after.count - before.count) / elapsed,
    samples: latencies.length,
    missing: written.size,
    p50: percentile(latencies, 50),
    p90: percentile(latencies, 90),
    p99: percentile(latencies, 99),
    max: latencies.at(-1) ?? Number.NaN,
    serviceCpu: cpu,
    receiverCpu: (after.cpuMs - before.cpuMs) / 1000 / elapsed,
  };
}

const load = loadavg().map((n) => round(n, 2));
console.log(
  `delivery benchmark: ${endpointCount} endpoints, concurrency ${concurrency} (per endpoint ${endpointConcurrency}), ${seconds} s phases, load average before ${load.join(" ")}`,
);
// The plain client and the sender alone, interleaved over --rounds rounds (medians, and the
// median of each round's ratio): on a shared machine one phase after the other compares two
// different moments of the neighbours' load.
const ceilingRounds: Awaited<ReturnType<typeof ceiling>>[] = [];
const fetchCeilingRounds: Awaited<ReturnType<typeof ceiling>>[] = [];
const senderRounds: Awaited<ReturnType<typeof senderAlone>>[] = [];
for (let i = 0; phases.has("sender") && i < ceilingRoundCount; i++) {
  ceilingRounds.push(await ceiling());
  fetchCeilingRounds.push(await ceilingOverFetch());
  senderRounds.push(await senderAlone());
}
const medianOf = (list: number[]) => {
  const sorted = [...list].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};
const plain = {
  perSecond: medianOf(ceilingRounds.map((r) => r.perSecond)),
  clientCpu: medianOf(ceilingRounds.map((r) => r.clientCpu)),
  receiverCpu: medianOf(ceilingRounds.map((r) => r.receiverCpu)),
  cpuUsPerRequest: medianOf(ceilingRounds.map((r) => (r.clientCpu * 1e6) / r.perSecond)),
};
const plainFetch = {
  perSecond: medianOf(fetchCeilingRounds.map((r) => r.perSecond)),
  cpuUsPerRequest: medianOf(fetchCeilingRounds.map((r) => (r.clientCpu * 1e6) / r.perSecond)),
};
const alone = {
  perSecond: medianOf(senderRounds.map((r) => r.perSecond)),
  clientCpu: medianOf(senderRounds.map((r) => r.clientCpu)),
  cpuUsPerRequest: medianOf(senderRounds.map((r) => (r.clientCpu * 1e6) / r.perSecond)),
  ratio: medianOf(
    senderRounds.map((r, i) => r.perSecond / (ceilingRounds[i]?.perSecond ?? Number.NaN)),
  ),
  cpuRatio: medianOf(
    senderRounds.map(
      (r, i) =>
        (ceilingRounds[i]?.clientCpu ?? Number.NaN) /
        (ceilingRounds[i]?.perSecond ?? Number.NaN) /
        (r.clientCpu / r.perSecond),
    ),
  ),
};
if (phases.has("sender")) {
  console.log(
    `ceiling    plain keep-alive HTTPS client -> receiver: ${Math.round(plain.perSecond)} req/s, ${round(plain.cpuUsPerRequest)} µs of client CPU per request (client CPU ${round(plain.clientCpu, 2)} cores, receiver ${round(plain.receiverCpu, 2)}; median of ${ceilingRoundCount} rounds)`,
  );
  console.log(
    `           plain keep-alive client over a Bun fetch session (the sender's transport) -> receiver: ${Math.round(plainFetch.perSecond)} req/s, ${round(plainFetch.cpuUsPerRequest)} µs of client CPU per request (a stricter reference, not the targets' baseline)`,
  );
  console.log(
    `sender     the service's sender alone (no database) -> receiver: ${Math.round(alone.perSecond)} req/s = ${round(100 * alone.ratio)}% of the plain client (target >= 70%; median of per-round ratios), ${round(alone.cpuUsPerRequest)} µs of CPU per request = ${round(100 * alone.cpuRatio)}% of the plain client's rate per CPU (CPU ${round(alone.clientCpu, 2)} cores)`,
  );
}
// Enough for --seconds at the target ratio (half the sender alone), at most 100,000.
const backlog = values.backlog
  ? Number(values.backlog)
  : Math.min(100_000, Math.round((seconds * (alone.perSecond || 10_000)) / 2));
if (phases.has("throughput")) await fillBacklog(backlog);
const dispatcher = startWebhookDispatcher(services);
const full = phases.has("throughput") ? await throughput(dispatcher) : undefined;
if (full) {
  const cpuPerDelivery = (full.serviceCpu * 1e6) / full.perSecond;
  console.log(
    `throughput service end to end (a backlog of ${backlog} written beforehand by another process, drained for ${round(full.elapsed)} s): ${Math.round(full.perSecond)} deliveries/s = ${round((100 * full.perSecond) / plain.perSecond)}% of the plain client (target >= 50%; ${round((100 * full.perSecond) / plainFetch.perSecond)}% of the plain fetch client), ${round((100 * full.perSecond) / alone.perSecond)}% of the sender alone, ${round(full.averageInFlight)} in flight on average; ${round(cpuPerDelivery)} µs of service CPU per delivery = ${round((100 * plain.cpuUsPerRequest) / cpuPerDelivery)}% of the plain client's rate per CPU (service CPU ${round(full.serviceCpu, 2)} cores, receiver ${round(full.receiverCpu, 2)})`,
  );
  console.log(`           ${full.locks}`);
}
const lat = phases.has("latency") ? await latency() : undefined;
if (lat) {
  console.log(
    `latency    ${Math.round(lat.offered)} events/s offered, ${Math.round(lat.delivered)} delivered/s: first attempt p50 ${round(lat.p50)} ms, p90 ${round(lat.p90)} ms, p99 ${round(lat.p99)} ms (target <= 20 ms at 2,000/s), max ${round(lat.max)} ms (${lat.samples} samples, ${lat.missing} missing; service CPU ${round(lat.serviceCpu, 2)} cores, producer ${round(lat.producerCpu, 2)}${lat.producerLockShare === undefined ? "" : ` holding the write lock ${round(lat.producerLockShare * 100, 1)} % of the time`}, receiver ${round(lat.receiverCpu, 2)})`,
  );
  console.log(`           ${lat.locks}`);
}
console.log(
  JSON.stringify({
    load,
    loadAfter: loadavg().map((n) => round(n, 2)),
    ceilingPerSecond: Math.round(plain.perSecond),
    fetchCeilingPerSecond: Math.round(plainFetch.perSecond),
    senderAlonePerSecond: Math.round(alone.perSecond),
    deliveriesPerSecond: full && Math.round(full.perSecond),
    senderRatioToCeiling: round(alone.ratio, 3),
    senderCpuRatioToCeiling: round(alone.cpuRatio, 3),
    ratioToSenderAlone: full && round(full.perSecond / alone.perSecond, 3),
    ratioToCeiling: full && round(full.perSecond / plain.perSecond, 3),
    ratioToFetchCeiling: full && round(full.perSecond / plainFetch.perSecond, 3),
    latencyRate: lat && Math.round(lat.offered),
    p50Ms: lat && round(lat.p50),
    p99Ms: lat && round(lat.p99),
  }),
);
await dispatcher.stop();
await checkpoints.stop();
await services.database.close();
await store.dispose();
receiverProcess.kill("SIGTERM");
await receiverProcess.exited;
controlAgent.destroy();
process.exit(0);
