// bun run bench:api — the read API against a bare Bun.serve answering a constant, measured with
// the same load generator in the same run (BENCHMARKS.md). The servers run in one child process,
// the load generator in another (wrk when installed, else scripts/bench/load.ts), so neither
// shares an event loop with what it measures. Rounds are interleaved and the median is reported,
// because the machine is small and shared.
import { parseArgs } from "node:util";

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    rounds: { type: "string", default: "5" },
    seconds: { type: "string", default: "5" },
    connections: { type: "string", default: "32" },
    "bun-client": { type: "boolean", default: false },
  },
});
const rounds = Number(values.rounds);
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const useWrk = !values["bun-client"] && Bun.which("wrk") !== null;

interface Measurement {
  rps: number;
  p50Ms: number;
  p99Ms: number;
}

const server = Bun.spawn([process.execPath, "run", `${import.meta.dir}/read-api-server.ts`], {
  stdout: "pipe",
  stderr: "pipe",
});
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
  apiUrl: string;
  quietApiUrl: string;
  bareUrl: string;
  key: string;
  accountId: string;
  transactionCount: number;
  pageBytes: number;
};

const targets = [
  { name: "bare Bun.serve (constant)", url: `${setup.bareUrl}/`, auth: false },
  {
    name: `bare, constant ${Math.round(setup.pageBytes / 1024)} KB page`,
    url: `${setup.bareUrl}/page`,
    auth: false,
  },
  { name: "GET /v1/accounts", url: `${setup.apiUrl}/v1/accounts`, auth: true },
  {
    name: "GET transactions, 100 rows",
    url: `${setup.apiUrl}/v1/accounts/${setup.accountId}/transactions?limit=100`,
    auth: true,
  },
  {
    name: "  the same, logLevel warn",
    url: `${setup.quietApiUrl}/v1/accounts/${setup.accountId}/transactions?limit=100`,
    auth: true,
  },
] as const;

function wrkMs(text: string): number {
  const match = /^([\d.]+)(us|ms|s)$/.exec(text.trim());
  if (!match) throw new Error(`cannot read wrk latency "${text}"`);
  const value = Number(match[1]);
  return match[2] === "us" ? value / 1000 : match[2] === "s" ? value * 1000 : value;
}

async function run(url: string, auth: boolean, durationS: number): Promise<Measurement> {
  const header = `Authorization: Bearer ${setup.key}`;
  const command = useWrk
    ? [
        "wrk",
        "-t1",
        `-c${connections}`,
        `-d${durationS}s`,
        "--latency",
        ...(auth ? ["-H", header] : []),
        url,
      ]
    : [
        process.execPath,
        "run",
        `${import.meta.dir}/load.ts`,
        url,
        "--connections",
        String(connections),
        "--seconds",
        String(durationS),
        ...(auth ? ["--header", header] : []),
      ];
  const child = Bun.spawn(command, { stdout: "pipe", stderr: "pipe" });
  const out = await new Response(child.stdout).text();
  if ((await child.exited) !== 0) throw new Error(`load generator failed:\n${out}`);
  if (!useWrk) {
    const result = JSON.parse(out) as Measurement & { failures: number };
    if (result.failures > 0) throw new Error(`${result.failures} responses were not 200`);
    return result;
  }
  if (/Non-2xx or 3xx responses/.test(out)) throw new Error(`responses were not 200:\n${out}`);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
  const p50 = /^\s+50%\s+(\S+)/m.exec(out)?.[1];
  const p99 = /^\s+99%\s+(\S+)/m.exec(out)?.[1];
  if (!rps || !p50 || !p99) throw new Error(`cannot read wrk output:\n${out}`);
  return { rps, p50Ms: wrkMs(p50), p99Ms: wrkMs(p99) };
}

function median(numbers: number[]): number {
  const sorted = [...numbers].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

try {
  // Sanity: the API answers 200 with 100 rows before anything is timed.
  const probe = await fetch(targets[3].url, { headers: { Authorization: `Bearer ${setup.key}` } });
  const probeBody = (await probe.json()) as { data: unknown[] };
  if (probe.status !== 200 || probeBody.data.length !== 100) {
    throw new Error(
      `transactions page answered ${probe.status} with ${probeBody.data?.length} rows`,
    );
  }
  for (const target of targets) await run(target.url, target.auth, 1); // warm-up

  const results = new Map<string, Measurement[]>(targets.map((t) => [t.name, []]));
  for (let round = 1; round <= rounds; round++) {
    for (const target of targets) {
      const measurement = await run(target.url, target.auth, seconds);
      results.get(target.name)?.push(measurement);
      console.error(
        `round ${round}/${rounds} ${target.name}: ${measurement.rps.toFixed(0)} req/s, p50 ${measurement.p50Ms.toFixed(2)} ms, p99 ${measurement.p99Ms.toFixed(2)} ms`,
      );
    }
  }

  const bareRounds = results.get(targets[0].name) ?? [];
  const summary = targets.map((target) => {
    const list = results.get(target.name) ?? [];
    return {
      name: target.name,
      rps: median(list.map((m) => m.rps)),
      p50Ms: median(list.map((m) => m.p50Ms)),
      p99Ms: median(list.map((m) => m.p99Ms)),
      // Each round's ratio against the bare server of the same round, then the median: load from
      // other processes shifts both sides of a round alike.
      ratio: median(list.map((m, i) => m.rps / (bareRounds[i]?.rps ?? Number.NaN))),
    };
  });
  console.log(
    `\nread API vs bare Bun.serve — ${useWrk ? "wrk -t1" : "Bun fetch client"}, ${connections} keep-alive connections, ${rounds} x ${seconds} s per target, medians (ratio: median of per-round ratios); ${setup.transactionCount} transactions on the account\n`,
  );
  console.log("target                          req/s     p50 ms   p99 ms   vs bare");
  for (const row of summary) {
    console.log(
      `${row.name.padEnd(30)} ${row.rps.toFixed(0).padStart(7)}  ${row.p50Ms.toFixed(2).padStart(7)}  ${row.p99Ms.toFixed(2).padStart(7)}   ${(row.ratio * 100).toFixed(1).padStart(5)}%`,
    );
  }
  console.log(
    `\nthe server wrote ${(serverLogBytes / 1e6).toFixed(0)} MB of log lines (access log at info)`,
  );
  const page = summary[3] as (typeof summary)[number];
  const ratio = page.ratio;
  console.log(
    `\ntarget: transactions page >= 50% of bare req/s and p99 < 5 ms -> ${(ratio * 100).toFixed(1)}%, p99 ${page.p99Ms.toFixed(2)} ms: ${ratio >= 0.5 && page.p99Ms < 5 ? "met" : "NOT met"}`,
  );
} finally {
  server.kill("SIGTERM");
  await server.exited;
}
