// bun run bench:api — the read API against a bare Bun.serve answering a constant, measured with
// the same load generator in the same run (BENCHMARKS.md). The servers run in one child process,
// the load generator in another (wrk when installed, else scripts/bench/load.ts), so neither
// shares an event loop with what it measures. Rounds are interleaved and the median is reported,
// because the machine is small and shared.
//
// Targets: the same URL again and again (what the answer cache serves), and rotations over
// thousands of distinct URLs (first pages of many windows, limits, tenants and include_pending;
// cursor pages through two years) — more than the answer cache holds, so each is read from the
// database; the server counts the answers the cache gave, and the bench prints that share. The
// rotating targets are compared with the bare server driven by the same rotation script, and
// with the engine's floor over the same URLs: after each rotating run, scripts/bench/engine-floor.ts
// reads the pages that run asked for with the service's own SQL on a connection of its own, in a
// plain process (bun:sqlite, or Bun's SQL client on PostgreSQL). The server process's CPU time
// per answer is read from /proc, so the share of that ceiling is also given in CPU time.
//
//   --database-url postgres://…   run the service on a fresh database on that PostgreSQL server
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    rounds: { type: "string", default: "5" },
    seconds: { type: "string", default: "5" },
    connections: { type: "string", default: "32" },
    "bun-client": { type: "boolean", default: false },
    "database-url": { type: "string" },
  },
});
const rounds = Number(values.rounds);
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const useWrk = !values["bun-client"] && Bun.which("wrk") !== null;
const rotateScript = `${import.meta.dir}/rotate.lua`;
/** How long each round's engine floor reads (after each rotating target's run). */
const floorSeconds = Math.min(2, seconds);

interface Measurement {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** Share of the answers that came from the answer cache. */
  cachedShare: number;
  /** CPU time the server process used per answer (all its threads), µs. */
  serverCpuUs: number;
  /** Rotating targets: the engine's floor over the same URLs, measured right after. */
  floor?: Floor;
}

/** scripts/bench/engine-floor.ts's answer: a bare statement over the same rotation. */
interface Floor {
  pages: number;
  usPerPage: number;
  cpuUsPerPage: number;
  rowsPerPage: number;
}

const databaseUrl = values["database-url"];
const server = Bun.spawn(
  [
    process.execPath,
    "run",
    `${import.meta.dir}/read-api-server.ts`,
    ...(databaseUrl ? ["--database-url", databaseUrl] : []),
  ],
  { stdout: "pipe", stderr: "pipe" },
);
// The server's log (an access-log line per request) is read as journald would read it; the last
// lines are shown if the server fails.
const serverLogTail: string[] = [];
let serverLogBytes = 0;
void (async () => {
  const decoder = new TextDecoder();
  for await (const chunk of server.stderr) {
    serverLogBytes += chunk.byteLength;
    const lines = decoder.decode(chunk, { stream: true }).split("\n");
    serverLogTail.push(...lines.slice(-20));
    if (serverLogTail.length > 20) serverLogTail.splice(0, serverLogTail.length - 20);
  }
})();
const reader = server.stdout.getReader();
let firstLine = "";
while (!firstLine.includes("\n")) {
  const { value, done } = await reader.read();
  if (done) {
    throw new Error(`the bench server exited before it was ready:\n${serverLogTail.join("\n")}`);
  }
  firstLine += new TextDecoder().decode(value);
}
const setup = JSON.parse(firstLine.split("\n")[0] as string) as {
  engine: string;
  apiUrl: string;
  bareUrl: string;
  key: string;
  accountId: string;
  transactionCount: number;
  pageBytes: number;
  samplePath: string;
  firstPagesFile: string;
  firstPagesCount: number;
  laterPagesFile: string;
  laterPagesCount: number;
  depth: { deepestPage: number; firstPageMs: number; deepestPageMs: number };
  /** Where scripts/bench/engine-floor.ts reads the same pages (its engine arguments). */
  floorSource: string[];
  /** An account whose feed cursor precedes `changes` new transactions. */
  feed: {
    accountId: string;
    key: string;
    cursor: string;
    changes: number;
    listFrom: string;
    listTo: string;
  };
};

interface Target {
  name: string;
  url: string;
  /** Send the big account's key (fixed-URL targets). */
  auth?: boolean;
  /** A file of "<path> <key>" lines to rotate over. */
  rotate?: string;
  /** The target whose req/s this one is compared with. */
  baseline: string;
}

const bare = "bare Bun.serve (constant)";
const bareRotating = "bare, same rotation script";
const targets: Target[] = [
  { name: bare, url: `${setup.bareUrl}/`, baseline: bare },
  {
    name: `bare, constant ${Math.round(setup.pageBytes / 1024)} KB page`,
    url: `${setup.bareUrl}/page`,
    baseline: bare,
  },
  { name: bareRotating, url: setup.bareUrl, rotate: setup.firstPagesFile, baseline: bare },
  {
    name: "GET /v1/accounts (cached)",
    url: `${setup.apiUrl}/v1/accounts`,
    auth: true,
    baseline: bare,
  },
  {
    name: "transactions, same URL (cached)",
    url: `${setup.apiUrl}${setup.samplePath}`,
    auth: true,
    baseline: bare,
  },
  {
    name: `transactions, ${setup.firstPagesCount} first pages`,
    url: setup.apiUrl,
    rotate: setup.firstPagesFile,
    baseline: bareRotating,
  },
  {
    name: `transactions, ${setup.laterPagesCount} cursor pages`,
    url: setup.apiUrl,
    rotate: setup.laterPagesFile,
    baseline: bareRotating,
  },
];

function wrkMs(text: string): number {
  const match = /^([\d.]+)(us|ms|s)$/.exec(text.trim());
  if (!match) throw new Error(`cannot read wrk latency "${text}"`);
  const value = Number(match[1]);
  return match[2] === "us" ? value / 1000 : match[2] === "s" ? value * 1000 : value;
}

// The server process's CPU time (user + system, every thread) from /proc: what one answer costs
// it, whatever else the machine runs meanwhile (Linux; NaN elsewhere).
const clockTicksPerSecond = Number(
  Bun.spawnSync(["getconf", "CLK_TCK"]).stdout.toString().trim() || "100",
);
function serverCpuSeconds(): number {
  try {
    const stat = readFileSync(`/proc/${server.pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / clockTicksPerSecond;
  } catch {
    return Number.NaN;
  }
}

/** The server process's resident memory (VmRSS), MB. */
function serverRssMb(): number {
  try {
    const status = readFileSync(`/proc/${server.pid}/status`, "utf8");
    return Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1]) / 1024;
  } catch {
    return Number.NaN;
  }
}

/**
 * The engine's floor over the URLs a rotating run just asked for (from the same offset of the
 * same file), in a plain process of its own on a connection of its own.
 */
async function engineFloor(file: string, offset: number, durationS: number): Promise<Floor> {
  const child = Bun.spawn(
    [
      process.execPath,
      "run",
      `${import.meta.dir}/engine-floor.ts`,
      file,
      "--offset",
      String(offset),
      "--seconds",
      String(durationS),
      ...setup.floorSource,
    ],
    { stdout: "pipe", stderr: "pipe" },
  );
  const out = await new Response(child.stdout).text();
  if ((await child.exited) !== 0) {
    throw new Error(`engine-floor failed:\n${await new Response(child.stderr).text()}`);
  }
  return JSON.parse(out) as Floor;
}

async function servedFromCache(): Promise<number> {
  const counts = (await (await fetch(`${setup.bareUrl}/__served`)).json()) as {
    cached: number;
    total: number;
  };
  return counts.total === 0 ? 0 : counts.cached / counts.total;
}

/**
 * Where each rotating target goes on in its file: every run starts after the lines the previous
 * runs asked for, so a later round never repeats URLs (which would be answered from the cache).
 */
const rotationOffsets = new Map<string, number>();

async function run(target: Target, durationS: number): Promise<Measurement> {
  const header = `Authorization: Bearer ${setup.key}`;
  const offset = String(rotationOffsets.get(target.name) ?? 0);
  const command = useWrk
    ? [
        "wrk",
        "-t1",
        `-c${connections}`,
        `-d${durationS}s`,
        "--latency",
        ...(target.auth ? ["-H", header] : []),
        ...(target.rotate ? ["-s", rotateScript] : []),
        target.url,
        ...(target.rotate ? ["--", target.rotate, offset] : []),
      ]
    : [
        process.execPath,
        "run",
        `${import.meta.dir}/load.ts`,
        target.url,
        "--connections",
        String(connections),
        "--seconds",
        String(durationS),
        ...(target.auth ? ["--header", header] : []),
        ...(target.rotate ? ["--rotate", target.rotate, "--offset", offset] : []),
      ];
  await servedFromCache(); // resets the server's counts
  const cpuBefore = serverCpuSeconds();
  const child = Bun.spawn(command, { stdout: "pipe", stderr: "pipe" });
  const out = await new Response(child.stdout).text();
  if ((await child.exited) !== 0) throw new Error(`load generator failed:\n${out}`);
  const cpuUsed = serverCpuSeconds() - cpuBefore;
  const cachedShare = await servedFromCache();
  let measured: Omit<Measurement, "floor">;
  let requests: number;
  if (!useWrk) {
    const result = JSON.parse(out) as Measurement & { failures: number; requests: number };
    if (result.failures > 0) throw new Error(`${result.failures} responses were not 200`);
    requests = result.requests;
    measured = { ...result, cachedShare, serverCpuUs: (cpuUsed * 1e6) / requests };
  } else {
    if (/Non-2xx or 3xx responses/.test(out)) throw new Error(`responses were not 200:\n${out}`);
    const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
    requests = Number(/(\d+) requests in/.exec(out)?.[1]);
    const p50 = /^\s+50%\s+(\S+)/m.exec(out)?.[1];
    const p99 = /^\s+99%\s+(\S+)/m.exec(out)?.[1];
    if (!rps || !p50 || !p99) throw new Error(`cannot read wrk output:\n${out}`);
    const serverCpuUs = (cpuUsed * 1e6) / requests;
    measured = { rps, p50Ms: wrkMs(p50), p99Ms: wrkMs(p99), cachedShare, serverCpuUs };
  }
  rotationOffsets.set(target.name, Number(offset) + requests);
  if (!target.rotate || target.baseline === bare) return measured;
  // The floor over the very URLs this run asked for, straight after it.
  return { ...measured, floor: await engineFloor(target.rotate, Number(offset), floorSeconds) };
}

function median(numbers: number[]): number {
  const sorted = [...numbers].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Pages of `limit` from `first` on, following `next` until it says stop; rows read and ms. */
async function readAll(
  first: string,
  next: (body: Record<string, unknown>) => string | null,
  rowsOf: (body: Record<string, unknown>) => number,
): Promise<{ rows: number; ms: number }> {
  const started = performance.now();
  let rows = 0;
  for (let url: string | null = first; url !== null; ) {
    const response = await fetch(url, { headers: { Authorization: `Bearer ${setup.feed.key}` } });
    if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
    const body = (await response.json()) as Record<string, unknown>;
    rows += rowsOf(body);
    url = next(body);
  }
  return { rows, ms: performance.now() - started };
}

/**
 * Reading 10,000 changes end to end (HTTP, 500 a page, from the stored cursor until has_more is
 * false) against reading the same 10,000 rows through the list (about 500 a page,
 * include_pending, the cursor's pages, never from the answer cache) in the same run: medians of
 * `times` alternating reads.
 */
async function timeChangeFeed(times: number) {
  const { feed } = setup;
  const base = `${setup.apiUrl}/v1/accounts/${feed.accountId}/transactions`;
  const changes: number[] = [];
  const list: number[] = [];
  for (let i = 0; i < times; i++) {
    const read = await readAll(
      `${base}/changes?limit=500&cursor=${feed.cursor}`,
      (body) => (body.has_more ? `${base}/changes?limit=500&cursor=${body.next_cursor}` : null),
      (body) => (body.added as unknown[]).length + (body.modified as unknown[]).length,
    );
    if (read.rows !== feed.changes) throw new Error(`the feed gave ${read.rows} changes`);
    changes.push(read.ms);
    // A page size of its own per read, so no page is answered from the answer cache (the feed
    // never is).
    const limit = 500 - i;
    const listed = await readAll(
      `${base}?from=${feed.listFrom}&to=${feed.listTo}&include_pending=true&limit=${limit}`,
      (body) => (body.next_cursor ? `${base}?limit=${limit}&cursor=${body.next_cursor}` : null),
      (body) => (body.data as unknown[]).length,
    );
    if (listed.rows !== feed.changes) throw new Error(`the list gave ${listed.rows} rows`);
    list.push(listed.ms);
  }
  return { changesMs: median(changes), listMs: median(list) };
}

try {
  // Sanity: the API answers 200 with 100 rows before anything is timed.
  const probe = await fetch(`${setup.apiUrl}${setup.samplePath}`, {
    headers: { Authorization: `Bearer ${setup.key}` },
  });
  const probeBody = (await probe.json()) as { data: unknown[] };
  if (probe.status !== 200 || probeBody.data.length !== 100) {
    throw new Error(
      `transactions page answered ${probe.status} with ${probeBody.data?.length} rows`,
    );
  }
  for (const target of targets) await run(target, 1); // warm-up

  const results = new Map<string, Measurement[]>(targets.map((t) => [t.name, []]));
  for (let round = 1; round <= rounds; round++) {
    for (const target of targets) {
      const measurement = await run(target, seconds);
      results.get(target.name)?.push(measurement);
      console.error(
        `round ${round}/${rounds} ${target.name}: ${measurement.rps.toFixed(0)} req/s, p50 ${measurement.p50Ms.toFixed(2)} ms, p99 ${measurement.p99Ms.toFixed(2)} ms, ${(measurement.cachedShare * 100).toFixed(1)}% from cache, server CPU ${measurement.serverCpuUs.toFixed(0)} µs/req${measurement.floor ? `; floor ${measurement.floor.usPerPage.toFixed(0)} µs/page (CPU ${measurement.floor.cpuUsPerPage.toFixed(0)})` : ""}`,
      );
    }
  }

  const bareRounds = results.get(bare) ?? [];
  const barePageName = `bare, constant ${Math.round(setup.pageBytes / 1024)} KB page`;
  const barePageRounds = results.get(barePageName) ?? [];
  const summary = targets.map((target) => {
    const list = results.get(target.name) ?? [];
    const baseRounds = results.get(target.baseline) ?? [];
    const floors = list.flatMap((m) => (m.floor ? [m.floor] : []));
    return {
      name: target.name,
      rps: median(list.map((m) => m.rps)),
      p50Ms: median(list.map((m) => m.p50Ms)),
      p99Ms: median(list.map((m) => m.p99Ms)),
      cachedShare: median(list.map((m) => m.cachedShare)),
      serverCpuUs: median(list.map((m) => m.serverCpuUs)),
      // Each round's ratio against the bare server in the same round, then the median: load
      // from other processes shifts both sides of a round alike.
      ratio: median(list.map((m, i) => m.rps / (bareRounds[i]?.rps ?? Number.NaN))),
      // Against the bare server sending the same page's bytes as a constant, same round.
      ratioBarePage: median(list.map((m, i) => m.rps / (barePageRounds[i]?.rps ?? Number.NaN))),
      // Against the bare server driven by the same rotation script (what the script costs wrk
      // is then on both sides).
      ratioSameScript:
        target.baseline === bare
          ? undefined
          : median(list.map((m, i) => m.rps / (baseRounds[i]?.rps ?? Number.NaN))),
      // Rotating targets: the most one process could answer for these URLs — the engine's floor
      // over the same URLs (read right after the run) plus what the bare server spent sending a
      // page's bytes in the same round — and the share of it reached, per round, then the median.
      floor:
        floors.length === 0
          ? undefined
          : {
              usPerPage: median(floors.map((f) => f.usPerPage)),
              cpuUsPerPage: median(floors.map((f) => f.cpuUsPerPage)),
              rowsPerPage: median(floors.map((f) => f.rowsPerPage)),
              ceilingRps: median(
                list.map((m, i) =>
                  m.floor
                    ? 1e6 / (m.floor.usPerPage + 1e6 / (barePageRounds[i]?.rps ?? Number.NaN))
                    : Number.NaN,
                ),
              ),
              ratio: median(
                list.map((m, i) =>
                  m.floor
                    ? m.rps *
                      ((m.floor.usPerPage + 1e6 / (barePageRounds[i]?.rps ?? Number.NaN)) / 1e6)
                    : Number.NaN,
                ),
              ),
              // The same in CPU time: the server's CPU per answer against the floor's CPU per
              // page plus the bare server's CPU per page sent (immune to other processes).
              cpuRatio: median(
                list.map((m, i) =>
                  m.floor
                    ? (m.floor.cpuUsPerPage + (barePageRounds[i]?.serverCpuUs ?? Number.NaN)) /
                      m.serverCpuUs
                    : Number.NaN,
                ),
              ),
            },
    };
  });
  console.log(
    `\nread API (${setup.engine}) vs bare Bun.serve — ${useWrk ? "wrk -t1" : "Bun fetch client"}, ${connections} keep-alive connections, ${rounds} x ${seconds} s per target, medians (ratios: median of per-round ratios against the bare constant, and for rotating targets also against the bare server under the same rotation script); ${setup.transactionCount} transactions on 4 accounts with their own keys, access log on; server CPU = the server process's CPU time per answer\n`,
  );
  console.log(
    "target                              req/s   p50 ms   p99 ms  cached  vs bare  vs bare rotating  server CPU µs/req",
  );
  for (const row of summary) {
    console.log(
      `${row.name.padEnd(34)} ${row.rps.toFixed(0).padStart(7)}  ${row.p50Ms.toFixed(2).padStart(7)}  ${row.p99Ms.toFixed(2).padStart(7)}  ${`${(row.cachedShare * 100).toFixed(0)}%`.padStart(6)}  ${(row.ratio * 100).toFixed(1).padStart(6)}%  ${(row.ratioSameScript === undefined ? "" : `${(row.ratioSameScript * 100).toFixed(1)}%`).padStart(16)}  ${row.serverCpuUs.toFixed(0).padStart(8)}`,
    );
  }
  console.log(
    `\nthe engine's floor over the same URLs (${setup.engine === "sqlite" ? "a bare prepared bun:sqlite statement" : "the same query through Bun's SQL client"} on a connection of its own in a plain process, read right after each run from the same offset of the same file; ceiling = 1 / (floor + the bare server's time per ${Math.round(setup.pageBytes / 1024)} KB page in the same round)):`,
  );
  console.log(
    "target                              floor µs/page (wall / CPU)  rows/page  ceiling req/s  vs ceiling  CPU vs ceiling",
  );
  for (const row of summary) {
    if (!row.floor) continue;
    const f = row.floor;
    console.log(
      `${row.name.padEnd(34)} ${`${f.usPerPage.toFixed(0)} / ${f.cpuUsPerPage.toFixed(0)}`.padStart(26)}  ${f.rowsPerPage.toFixed(0).padStart(9)}  ${f.ceilingRps.toFixed(0).padStart(13)}  ${`${(f.ratio * 100).toFixed(1)}%`.padStart(10)}  ${`${(f.cpuRatio * 100).toFixed(1)}%`.padStart(14)}`,
    );
  }
  const { depth } = setup;
  const depthRatio = depth.deepestPageMs / depth.firstPageMs;
  console.log(
    `\npage depth (in-process, the read of one 100-row page): page 1 ${(depth.firstPageMs * 1000).toFixed(0)} µs, page ${depth.deepestPage} ${(depth.deepestPageMs * 1000).toFixed(0)} µs -> ${depthRatio.toFixed(2)}x`,
  );
  const rssMb = serverRssMb();
  console.log(
    `the server wrote ${(serverLogBytes / 1e6).toFixed(0)} MB of log lines (access log at info); its resident memory after the rounds: ${rssMb.toFixed(0)} MB (the bench's URL lists included)`,
  );
  const feedTimes = await timeChangeFeed(Math.max(5, rounds));
  console.log(
    `change feed: ${setup.feed.changes} changes read end to end (HTTP, 500 a page, until has_more is false) in ${feedTimes.changesMs.toFixed(0)} ms; the same ${setup.feed.changes} rows through the list (500 a page) in ${feedTimes.listMs.toFixed(0)} ms -> ${(feedTimes.changesMs / feedTimes.listMs).toFixed(2)}x the list`,
  );
  const cached = summary[4] as (typeof summary)[number];
  const uncached = summary.slice(5);
  const met = (ok: boolean) => (ok ? "met" : "NOT met");
  console.log(
    `\ntargets: cached page >= 75% of the bare server sending the same bytes -> ${(cached.ratioBarePage * 100).toFixed(1)}%: ${met(cached.ratioBarePage >= 0.75)}`,
  );
  // Judged on CPU time: on this shared machine the floor's own process waits for a core for
  // most of its wall time (its wall µs per page are several times its CPU µs), so a ceiling from
  // wall time says more about the other processes than about the engine.
  for (const row of uncached) {
    const ratio = row.floor?.cpuRatio ?? Number.NaN;
    console.log(
      `         ${row.name}: >= 50% of the engine's ceiling (CPU) and p99 <= 5 ms -> ${(ratio * 100).toFixed(1)}% (wall ${((row.floor?.ratio ?? Number.NaN) * 100).toFixed(1)}%), p99 ${row.p99Ms.toFixed(2)} ms: ${met(ratio >= 0.5 && row.p99Ms <= 5)}`,
    );
  }
  console.log(
    `         page ${depth.deepestPage} <= 1.2x page 1 -> ${depthRatio.toFixed(2)}x: ${met(depthRatio <= 1.2)}`,
  );
  console.log(
    `         resident memory after the uncached reads <= 300 MB -> ${rssMb.toFixed(0)} MB: ${met(rssMb <= 300)}`,
  );
  console.log(
    `         ${setup.feed.changes} changes end to end < 1 s -> ${feedTimes.changesMs.toFixed(0)} ms: ${met(feedTimes.changesMs < 1_000)}`,
  );
} finally {
  server.kill("SIGTERM");
  await server.exited;
}
