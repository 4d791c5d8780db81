// bun run scripts/bench/storage-before-after.ts --old-tree DIR — the storage-layer issue's "no
// loss over 5 % on SQLite": the read API of this tree and of an older checkout (DIR, e.g. a
// worktree of cad9596, the last commit before the async storage layer, with its own
// node_modules) measured in ONE run. Both bench servers run at once, each in its own process
// with its own SQLite file, and wrk drives them in alternation (old, new, old, new …), so the
// shared machine's load falls on both alike; the result is the median of the per-pair ratios.
// The target is the one page both trees' bench servers serve: the first transactions page
// (100 rows) of the big account, answered from each tree's answer cache after warm-up, plus
// each tree's bare Bun.serve constant as a sanity baseline.
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    "old-tree": { type: "string" },
    rounds: { type: "string", default: "8" },
    seconds: { type: "string", default: "3" },
    connections: { type: "string", default: "32" },
  },
});
if (!values["old-tree"]) {
  console.error("usage: storage-before-after.ts --old-tree DIR [--rounds 8] [--seconds 3]");
  process.exit(2);
}
if (!Bun.which("wrk")) throw new Error("this bench needs wrk (apt-get install -y wrk)");
const oldTree = resolve(values["old-tree"]);
const newTree = resolve(import.meta.dir, "../..");
const rounds = Number(values.rounds);
const seconds = Number(values.seconds);
const connections = Number(values.connections);

interface BenchServer {
  label: string;
  pid: number;
  pageUrl: string;
  bareUrl: string;
  key: string;
  stop(): void;
}

async function startServer(label: string, tree: string): Promise<BenchServer> {
  const child = Bun.spawn(
    [process.execPath, "run", join(tree, "scripts/bench/read-api-server.ts")],
    // One tenant: the same data set as the old tree's bench (100,000 rows on one account).
    { cwd: tree, stdout: "pipe", stderr: "ignore", env: { ...process.env, BENCH_TENANTS: "1" } },
  );
  const reader = child.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${label}: the bench server exited before it was ready`);
    text += new TextDecoder().decode(value);
  }
  const setup = JSON.parse(text.split("\n")[0] as string) as {
    apiUrl: string;
    bareUrl: string;
    key: string;
    accountId: string;
  };
  return {
    label,
    pid: child.pid,
    pageUrl: `${setup.apiUrl}/v1/accounts/${setup.accountId}/transactions?limit=100`,
    bareUrl: `${setup.bareUrl}/`,
    key: setup.key,
    stop: () => child.kill("SIGTERM"),
  };
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux clock ticks). */
async function cpuSeconds(pid: number): Promise<number> {
  const stat = await Bun.file(`/proc/${pid}/stat`).text();
  // The fields after the command name, which is in parentheses and may contain spaces.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticksPerSecond = 100; // USER_HZ on Linux
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

interface WrkRun {
  rps: number;
  /** The server's CPU time per request answered, in µs (undefined without a pid). */
  cpuUsPerRequest?: number;
}

async function wrk(url: string, headers: string[], serverPid?: number): Promise<WrkRun> {
  const cpuBefore = serverPid === undefined ? 0 : await cpuSeconds(serverPid);
  const child = Bun.spawn(
    ["wrk", "-t1", `-c${connections}`, `-d${seconds}s`, ...headers.flatMap((h) => ["-H", h]), url],
    { stdout: "pipe", stderr: "pipe" },
  );
  const out = await new Response(child.stdout).text();
  if ((await child.exited) !== 0 || /Non-2xx/.test(out)) throw new Error(`wrk failed:\n${out}`);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
  if (serverPid === undefined) return { rps };
  const requests = Number(/(\d+) requests in/.exec(out)?.[1]);
  const cpu = (await cpuSeconds(serverPid)) - cpuBefore;
  return { rps, cpuUsPerRequest: (cpu * 1e6) / requests };
}

function median(numbers: number[]): number {
  const sorted = [...numbers].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

const servers = [await startServer("old", oldTree), await startServer("new", newTree)];
try {
  for (const server of servers) {
    const auth = [`Authorization: Bearer ${server.key}`];
    const probe = await fetch(server.pageUrl, {
      headers: { Authorization: `Bearer ${server.key}` },
    });
    if (probe.status !== 200) throw new Error(`${server.label}: the page answered ${probe.status}`);
    await wrk(server.pageUrl, auth); // warm-up: the answer cache and the JIT
  }
  const pageRatios: number[] = [];
  const bareRatios: number[] = [];
  // Requests per CPU second, new/old: the server's own CPU time per answer, which the machine's
  // other load disturbs far less than requests per wall-clock second.
  const cpuRatios: number[] = [];
  const ownBare: Record<string, number[]> = { old: [], new: [] };
  const rows: string[] = [];
  for (let round = 1; round <= rounds; round++) {
    // Alternate which tree goes first, so neither always meets the same moment of load.
    const order = round % 2 ? servers : [...servers].reverse();
    const page: Record<string, number> = {};
    const bare: Record<string, number> = {};
    const cpu: Record<string, number> = {};
    for (const server of order) {
      const run = await wrk(server.pageUrl, [`Authorization: Bearer ${server.key}`], server.pid);
      page[server.label] = run.rps;
      cpu[server.label] = run.cpuUsPerRequest as number;
      bare[server.label] = (await wrk(server.bareUrl, [])).rps;
    }
    cpuRatios.push((cpu.old as number) / (cpu.new as number));
    const pageRatio = (page.new as number) / (page.old as number);
    pageRatios.push(pageRatio);
    bareRatios.push((bare.new as number) / (bare.old as number));
    for (const label of ["old", "new"]) {
      ownBare[label]?.push((page[label] as number) / (bare[label] as number));
    }
    rows.push(
      `| ${round} | ${Math.round(page.old as number)} | ${Math.round(page.new as number)} | ${(pageRatio * 100).toFixed(1)} % | ${(cpu.old as number).toFixed(1)} | ${(cpu.new as number).toFixed(1)} | ${Math.round(bare.old as number)} | ${Math.round(bare.new as number)} |`,
    );
  }
  const load = (await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ");
  console.log(
    `\nread API, cached transactions page (100 rows), old tree ${oldTree} vs this tree, wrk -t1 -c${connections}, ${rounds} alternating pairs x ${seconds} s, load average at the end ${load}\n`,
  );
  console.log(
    "| pair | old req/s | new req/s | new / old | old CPU µs/request | new CPU µs/request | bare (old process) | bare (new process) |",
  );
  console.log("|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const row of rows) console.log(row);
  console.log(
    `\nmedian new/old on the page: ${(median(pageRatios) * 100).toFixed(1)} %; the two bare servers (same code in both): ${(median(bareRatios) * 100).toFixed(1)} % (how even the pairing was)`,
  );
  console.log(
    `median requests per CPU second, new/old: ${(median(cpuRatios) * 100).toFixed(1)} % (the server's own CPU time per answer; the machine's other load moves it far less than req/s)`,
  );
  const oldShare = median(ownBare.old ?? []);
  const newShare = median(ownBare.new ?? []);
  console.log(
    `page as a share of its own process's bare server: old ${(oldShare * 100).toFixed(1)} %, new ${(newShare * 100).toFixed(1)} % (new/old ${((newShare / oldShare) * 100).toFixed(1)} %)`,
  );
} finally {
  for (const server of servers) server.stop();
}
