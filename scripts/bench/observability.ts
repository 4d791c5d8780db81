// What the access log and the HTTP metrics cost per request, in-process (the fetch
// handler `svc serve` gives Bun.serve, no sockets), so the figure is their share of the request
// and not network noise. After the first request the answer is remembered, so this is the cached
// lane (api/middleware/answer-lane.ts), the cheapest request there is and where the log weighs most.
// Baseline: logLevel "warn", where the access-log line is neither formatted nor written (the
// metrics are always on). Compared: logLevel "info", each line formatted and written to /dev/null
// in batches with real write(2) calls, as `svc serve` writes to stderr. Also: the metrics alone.
// Rounds interleave the variants; medians of per-round means. Run: bun run bench:observability
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServiceAccount } from "../../src/accounts/service-accounts.ts";
import { loadConfig } from "../../src/config/config.ts";
import { systemClock } from "../../src/core/clock.ts";
import { createApiKey } from "../../src/keys/api-keys.ts";
import { createLogger, type LogLevel } from "../../src/log/log.ts";
import { createBatchedSink } from "../../src/log/sink.ts";
import { createHttpApp } from "../../src/server/app.ts";
import { openServices } from "../../src/server/services.ts";
import { seedConnection } from "../../test/support/bank-fixtures.ts";

const rounds = Number(process.env.BENCH_ROUNDS ?? 7);
const requestsPerRound = Number(process.env.BENCH_REQUESTS ?? 4_000);
const dataDir = mkdtempSync(join(tmpdir(), "svc-bench-obs-"));
const devNull = openSync("/dev/null", "w");
process.on("exit", () => {
  closeSync(devNull);
  rmSync(dataDir, { recursive: true, force: true });
});

async function appWith(level: LogLevel) {
  const config = loadConfig({ env: {}, cwd: dataDir, flags: { dataDir } });
  const sink = createBatchedSink((chunk) => writeSync(devNull, chunk));
  const log = createLogger({ level, write: sink.write, flush: sink.flush });
  const services = await openServices(
    { ...config, apiRateLimitPerMinute: 1_000_000_000 },
    { clock: systemClock, log, env: { SVC_MASTER_KEY: "0f".repeat(32) } },
  );
  return { services, app: createHttpApp(services) };
}

const quiet = await appWith("warn");
const logged = await appWith("info");
const owner = await createServiceAccount(quiet.services.db, systemClock, {
  email: "bench@example.com",
});
await seedConnection(quiet.services.db, systemClock, owner.account.id, { accounts: 3 });
const { key } = await createApiKey(quiet.services.db, systemClock, {
  serviceAccountId: owner.account.id,
});
const request = () =>
  new Request("http://bench.local/v1/accounts", { headers: { Authorization: `Bearer ${key}` } });

async function meanMicros(app: { fetch: (r: Request) => Response | Promise<Response> }) {
  const started = performance.now();
  for (let i = 0; i < requestsPerRound; i++) {
    const response = await app.fetch(request());
    if (response.status !== 200) throw new Error(`answered ${response.status}`);
    await response.arrayBuffer();
  }
  return ((performance.now() - started) * 1000) / requestsPerRound;
}

function metricsMicros(): number {
  // What the access log's recorder does per request once its labels are resolved.
  const observe = quiet.services.metrics.httpRequestObserver("GET", "/v1/accounts", 200);
  const started = performance.now();
  for (let i = 0; i < requestsPerRound; i++) {
    observe(0.001);
  }
  return ((performance.now() - started) * 1000) / requestsPerRound;
}

const attempt = {
  startedAt: new Date(),
  durationMs: 12,
  ok: true,
  statusCode: 200,
  errorClass: null,
  errorMessage: null,
};

function deliveryMetricsMicros(): number {
  const started = performance.now();
  for (let i = 0; i < requestsPerRound; i++) {
    quiet.services.metrics.deliveryAttempt(attempt);
    quiet.services.metrics.deliveryFinished("succeeded");
  }
  return ((performance.now() - started) * 1000) / requestsPerRound;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

await meanMicros(quiet.app);
await meanMicros(logged.app);
const results = {
  quiet: [] as number[],
  logged: [] as number[],
  metrics: [] as number[],
  delivery: [] as number[],
};
for (let round = 0; round < rounds; round++) {
  results.quiet.push(await meanMicros(quiet.app));
  results.logged.push(await meanMicros(logged.app));
  results.metrics.push(metricsMicros());
  results.delivery.push(deliveryMetricsMicros());
}
const base = median(results.quiet);
const row = (name: string, micros: number) =>
  `| ${name} | ${micros.toFixed(1)} µs | ${((micros / base) * 100).toFixed(1)} % |`;
console.log(
  `GET /v1/accounts in-process, ${rounds} rounds x ${requestsPerRound} requests, medians`,
);
console.log("| variant | per request | vs baseline |");
console.log("|---|---:|---:|");
console.log(row("baseline: logLevel warn (no access-log line; metrics on)", base));
console.log(
  row("logLevel info (access-log line formatted and written in batches)", median(results.logged)),
);
console.log(row("request metrics alone (counter + histogram)", median(results.metrics)));
console.log(
  row("per delivery attempt: deliveryAttempt() + deliveryFinished()", median(results.delivery)),
);
