// The settings a running `svc serve` was given as flags or environment variables, written to the
// data dir while it runs, so that other commands on the same data dir use them too: a send the
// CLI starts (endpoints test, send-code, resend) leaves with the server's source address and CA
// settings, and `svc health` asks the port the server really listens on.
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const runningServerFileName = "svc.running.json";

export interface RunningServerFile {
  pid: number;
  started_at: string;
  /** Values of config keys that came from the server's flags or environment, as parsed. */
  settings: Record<string, unknown>;
  /** Where each came from in the server's process ("--port", "SVC_PORT"). */
  origins: Record<string, string>;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user (a service account).
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The running server's file in `dataDir`, or undefined when none runs (or it cannot be read). */
export function readRunningServer(dataDir: string): RunningServerFile | undefined {
  const path = join(dataDir, runningServerFileName);
  if (!existsSync(path)) return undefined;
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as RunningServerFile;
    if (!Number.isInteger(parsed.pid) || parsed.pid === process.pid || !alive(parsed.pid))
      return undefined;
    if (typeof parsed.settings !== "object" || parsed.settings === null) return undefined;
    return parsed;
  } catch {
    return undefined;
  }
}

/**
 * Written by `svc serve` once it listens (mode 0600: it may hold a database or SMTP URL, as
 * svc.json may); removed when it stops. Returns the function that removes it.
 */
export function writeRunningServer(
  dataDir: string,
  settings: Record<string, unknown>,
  origins: Record<string, string>,
  now: Date,
): () => void {
  if (!existsSync(dataDir)) return () => {};
  const path = join(dataDir, runningServerFileName);
  const file: RunningServerFile = {
    pid: process.pid,
    started_at: now.toISOString(),
    settings,
    origins,
  };
  const temporary = `${path}.tmp-${process.pid}`;
  writeFileSync(temporary, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, path);
  return () => {
    // Another server may have started on the same data dir since: remove only our own file.
    try {
      const current = JSON.parse(readFileSync(path, "utf8")) as RunningServerFile;
      if (current.pid === process.pid) rmSync(path, { force: true });
    } catch {}
  };
}
