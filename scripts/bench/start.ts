// bun run scripts/bench/start.ts — cold start of the compiled binary: from exec of `svc serve` to
// the first 200 of /readyz, and the resident memory once it is ready and idle. The binary of this
// tree and the one of another commit (default: the previous one) start alternately, each on a
// database of its own (migrated by a first start that is not counted), so a busy moment of a
// shared machine falls on both alike; medians and the ratio are printed.
//
//   --runs N              counted starts of each binary (default 8)
//   --compare-rev REV     the commit to compare with (default HEAD~1), built from `git archive`
//   --database-url URL    start on PostgreSQL: a fresh database per binary on that server
//   --idle-ms MS          how long a ready server idles before its memory is read (default 1000)
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { openBenchDatabase } from "./bench-database.ts";
import { freePort, loadAverage, median } from "./bench-util.ts";

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    runs: { type: "string", default: "8" },
    "compare-rev": { type: "string", default: "HEAD~1" },
    "database-url": { type: "string" },
    "idle-ms": { type: "string", default: "1000" },
  },
});
const runs = Number(values.runs);
const idleMs = Number(values["idle-ms"]);
const repoRoot = join(import.meta.dir, "../..");
const work = mkdtempSync(join(tmpdir(), "svc-start-bench-"));

async function run(cmd: string[], cwd: string): Promise<void> {
  const child = Bun.spawn(cmd, { cwd, stdout: "ignore", stderr: "pipe" });
  if ((await child.exited) !== 0) {
    throw new Error(`${cmd.join(" ")} failed:\n${await new Response(child.stderr).text()}`);
  }
}

/** Builds the binary of `rev` (or of this working tree) and returns its path. */
async function build(rev: string | undefined): Promise<string> {
  const outfile = join(work, rev ? "svc-compare" : "svc-this");
  let tree = repoRoot;
  if (rev) {
    tree = join(work, "compare-tree");
    await run(["mkdir", "-p", tree], work);
    await run(["sh", "-c", `git -C "${repoRoot}" archive "${rev}" | tar -x -C "${tree}"`], work);
    symlinkSync(join(repoRoot, "node_modules"), join(tree, "node_modules"));
  }
  await run([process.execPath, "run", "scripts/build.ts", "--outfile", outfile], tree);
  return outfile;
}

interface Start {
  readyMs: number;
  idleRssMb: number;
}

/** One start of `binary` on its store: exec to the first ready answer, then the idle memory. */
async function startOnce(binary: string, env: Record<string, string>): Promise<Start> {
  const port = await freePort();
  const started = performance.now();
  const server = Bun.spawn([binary, "serve", "--port", String(port)], {
    env: { ...process.env, ...env },
    stdout: "ignore",
    stderr: "ignore",
  });
  try {
    let readyMs = Number.NaN;
    while (performance.now() - started < 30_000) {
      try {
        if ((await fetch(`http://127.0.0.1:${port}/readyz`)).ok) {
          readyMs = performance.now() - started;
          break;
        }
      } catch {} // not listening yet
      await Bun.sleep(2);
    }
    await Bun.sleep(idleMs);
    const status = readFileSync(`/proc/${server.pid}/status`, "utf8");
    const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
    return { readyMs, idleRssMb: rssKb / 1024 };
  } finally {
    server.kill("SIGTERM");
    await server.exited;
  }
}

const stores: Awaited<ReturnType<typeof openBenchDatabase>>[] = [];
try {
  console.log(`building this tree and ${values["compare-rev"]} (load average ${loadAverage()})`);
  const binaries = { this: await build(undefined), compare: await build(values["compare-rev"]) };
  const envs: Record<keyof typeof binaries, Record<string, string>> = { this: {}, compare: {} };
  for (const name of ["this", "compare"] as const) {
    const store = await openBenchDatabase(values["database-url"]);
    stores.push(store);
    envs[name] = {
      SVC_DATA_DIR: store.dataDir,
      SVC_MASTER_KEY: "0f".repeat(32),
      SVC_LOG_LEVEL: "warn",
      ...(store.databaseUrl ? { SVC_DATABASE_URL: store.databaseUrl } : {}),
    };
    // The first start migrates the new database and makes the operator account: not counted.
    await startOnce(binaries[name], envs[name]);
  }
  const results: Record<keyof typeof binaries, Start[]> = { this: [], compare: [] };
  for (let i = 0; i < runs; i++) {
    // Alternate which goes first, so neither always follows the other's exit.
    const order = i % 2 === 0 ? (["this", "compare"] as const) : (["compare", "this"] as const);
    for (const name of order) results[name].push(await startOnce(binaries[name], envs[name]));
  }
  const engine = values["database-url"] ? "PostgreSQL" : "SQLite";
  console.log(`\ncold start of the compiled binary to /readyz, ${engine}, ${runs} starts each:`);
  for (const name of ["this", "compare"] as const) {
    const label = name === "this" ? "this tree" : values["compare-rev"];
    const ready = results[name].map((s) => s.readyMs);
    console.log(
      `  ${label.padEnd(10)} ready after ${median(ready).toFixed(0)} ms (median; min ${Math.min(...ready).toFixed(0)}, max ${Math.max(...ready).toFixed(0)}), idle RSS ${median(results[name].map((s) => s.idleRssMb)).toFixed(1)} MB (target: <= 300 ms, <= 100 MB)`,
    );
  }
  const ratio = (pick: (s: Start) => number) =>
    median(results.this.map(pick)) / median(results.compare.map(pick));
  console.log(
    `  this tree / ${values["compare-rev"]}: start ${ratio((s) => s.readyMs).toFixed(2)}x, idle RSS ${ratio((s) => s.idleRssMb).toFixed(2)}x (load average ${loadAverage()})`,
  );
} finally {
  for (const store of stores) await store.dispose();
  rmSync(work, { recursive: true, force: true });
}
