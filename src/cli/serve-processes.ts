// `svc serve --workers N`: this process becomes a supervisor of N serving processes
// that share the listening port (Bun.serve `reusePort`: the kernel spreads connections over
// them). It has already migrated the database and created the master key and the first
// operator, so the serving processes start on a ready database. One that dies is started again
// after a pause that doubles while it keeps dying (1 s up to 30 s, back to 1 s after a minute
// up); SIGTERM/SIGINT is passed on to every one and the supervisor exits once all have stopped
// gracefully. (The log and the environment still call them workers, after `--workers`.)
import type { Logger } from "../log/log.ts";

/** Set in a serving process's environment: its index; a serving process never supervises. */
export const processIndexEnv = "SVC_WORKER_INDEX";
/** In a serving process's environment: the supervisor's pid (one started after it died stops). */
export const supervisorPidEnv = "SVC_SUPERVISOR_PID";

const firstRestartDelayMs = 1_000;
const maxRestartDelayMs = 30_000;
const healthyAfterMs = 60_000;

/** The command line that starts this program again with the same arguments. */
function ownCommandLine(): string[] {
  // A compiled binary's script lives inside it ("/$bunfs/..." or "B:/~BUN/..."); otherwise the
  // runtime needs the script's path first.
  const compiled = Bun.main.startsWith("/$bunfs/") || Bun.main.startsWith("B:/~BUN/");
  const args = process.argv.slice(2);
  return compiled ? [process.execPath, ...args] : [process.execPath, Bun.main, ...args];
}

export interface ProcessSupervision {
  /** Resolves once every serving process has exited after `stop()`. */
  stop(signal: NodeJS.Signals): Promise<void>;
}

export function superviseProcesses(
  count: number,
  options: { log: Logger; command?: string[]; env?: Record<string, string | undefined> },
): ProcessSupervision {
  const command = options.command ?? ownCommandLine();
  const env = options.env ?? process.env;
  let stopping = false;
  const children = new Map<number, ReturnType<typeof Bun.spawn>>();
  const exits = new Map<number, Promise<void>>();

  const start = (index: number, delayMs: number) => {
    const startedAt = Date.now();
    const child = Bun.spawn(command, {
      env: { ...env, [processIndexEnv]: String(index), [supervisorPidEnv]: String(process.pid) },
      stdio: ["ignore", "inherit", "inherit"],
    });
    children.set(index, child);
    options.log.info("worker started", { worker: index, pid: child.pid });
    exits.set(
      index,
      child.exited.then((code) => {
        children.delete(index);
        if (stopping) return;
        const upMs = Date.now() - startedAt;
        const nextDelayMs =
          upMs >= healthyAfterMs ? firstRestartDelayMs : Math.min(delayMs * 2, maxRestartDelayMs);
        options.log.error("worker exited; starting it again", {
          worker: index,
          exitCode: code,
          signal: child.signalCode,
          restartInMs: delayMs,
        });
        setTimeout(() => {
          if (!stopping) start(index, nextDelayMs);
        }, delayMs);
      }),
    );
  };
  for (let index = 0; index < count; index++) start(index, firstRestartDelayMs);

  return {
    async stop(signal) {
      stopping = true;
      for (const child of children.values()) child.kill(signal);
      await Promise.all([...children.values()].map((child) => child.exited));
    },
  };
}

/**
 * In a serving process: SIGTERM to itself once its supervisor is gone (its parent is no longer
 * that pid, also when it died before this process got this far); checked every second.
 */
export function stopWhenOrphaned(supervisorPid: number): ReturnType<typeof setInterval> {
  const watch = setInterval(() => {
    if (process.ppid === supervisorPid) return;
    clearInterval(watch);
    process.kill(process.pid, "SIGTERM");
  }, 1_000);
  watch.unref();
  return watch;
}
