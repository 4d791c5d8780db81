// `svc serve --workers N` through the compiled binary: N processes share the port,
// a worker killed with SIGKILL is started again while the others keep answering, and SIGTERM
// stops them all gracefully. Runs on the suite's engine (SQLite under WAL, or PostgreSQL).
import { afterAll, describe, expect, test } from "bun:test";
import { compiledBinary, type StartedBinary, startBinary } from "../support/binary.ts";
import { makeTempDir } from "../support/temp.ts";
import { waitUntil } from "../support/wait.ts";

let server: StartedBinary | undefined;
afterAll(async () => {
  // A failed test leaves nothing running: the workers first, then the supervisor.
  for (const pid of workerPids(server?.stderr() ?? "")) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
  await server?.stop("SIGKILL").catch(() => undefined);
});

/** A request on a connection of its own: a pooled one may belong to the worker killed below. */
const healthz = (baseUrl: string) =>
  fetch(`${baseUrl}/healthz`, { headers: { Connection: "close" } });

function workerPids(log: string): number[] {
  const pids: number[] = [];
  for (const line of log.split("\n")) {
    if (!line.includes('"worker started"')) continue;
    pids.push((JSON.parse(line) as { pid: number }).pid);
  }
  return pids;
}

const listening = (log: string) =>
  log.split("\n").filter((line) => line.includes('"msg":"listening"')).length;

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("svc serve --workers", () => {
  test("three workers share the port; one killed is replaced while the others answer; SIGTERM stops all", async () => {
    const binary = await compiledBinary();
    const dir = makeTempDir("svc-workers");
    server = await startBinary(binary, { cwd: dir, args: ["--workers", "3"] });
    const started = server;
    await waitUntil(() => workerPids(started.stderr()).length === 3, "three workers", 15_000);
    // Each worker logs "listening" once its server has bound the shared port.
    await waitUntil(() => listening(started.stderr()) === 3, "three workers listening", 15_000);
    const pids = workerPids(started.stderr());
    // Every request is answered by one of the workers, whichever the kernel picks.
    for (let i = 0; i < 30; i++) expect((await healthz(started.baseUrl)).status).toBe(200);
    // The first operator was created once, by the supervisor, before the workers started.
    expect(started.stdout().match(/First start: an operator account was created/g)).toHaveLength(1);

    process.kill(pids[0] as number, "SIGKILL");
    // Connections the kernel had already queued on the dead worker's socket are reset (as with
    // any process killed mid-accept); new ones go to the live workers.
    await waitUntil(() => !alive(pids[0] as number), "the killed worker to be gone");
    for (let i = 0; i < 10; i++) expect((await healthz(started.baseUrl)).status).toBe(200);
    await waitUntil(() => workerPids(started.stderr()).length === 4, "the replacement", 15_000);
    expect(started.stderr()).toContain("worker exited; starting it again");
    const replacement = workerPids(started.stderr())[3] as number;
    expect(alive(replacement)).toBe(true);

    expect(await started.stop("SIGTERM")).toBe(0);
    for (const pid of [...pids.slice(1), replacement]) expect(alive(pid)).toBe(false);
    server = undefined;
  }, 60_000);

  test("workers left without their supervisor (SIGKILL) stop by themselves", async () => {
    const binary = await compiledBinary();
    const dir = makeTempDir("svc-workers-orphans");
    server = await startBinary(binary, { cwd: dir, args: ["--workers", "2"] });
    const started = server;
    await waitUntil(() => workerPids(started.stderr()).length === 2, "two workers", 15_000);
    const pids = workerPids(started.stderr());
    // Killed at once: the workers may not even have started their own watch yet.
    await started.stop("SIGKILL");
    await waitUntil(() => pids.every((pid) => !alive(pid)), "the orphaned workers to stop", 20_000);
    server = undefined;
  }, 60_000);
});
