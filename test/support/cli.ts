import type { CliIo } from "../../src/cli/io.ts";
import { runCli } from "../../src/cli/program.ts";
import type { Clock } from "../../src/core/clock.ts";
import { engineEnvFor } from "./engine.ts";

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (for --json runs). */
  json<T = unknown>(): T;
}

export interface CliRunOptions {
  cwd: string;
  env?: Record<string, string | undefined>;
  interactive?: boolean;
  clock?: Clock;
  /** Sends the stop signal (Ctrl-C) after this long; never when absent. */
  stopAfterMs?: number;
}

/** An io that discards output and never sees a stop signal: for building the program only. */
export const silentCliIo: CliIo = {
  stdout: () => {},
  stderr: () => {},
  env: {},
  cwd: "/",
  interactive: false,
  untilStopSignal: () => new Promise(() => {}),
};

/** Runs `svc ...` in-process with captured output. */
export async function runSvc(argv: string[], options: CliRunOptions): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const io: CliIo = {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    env: { ...(await engineEnvFor(options.cwd)), ...options.env },
    cwd: options.cwd,
    interactive: options.interactive ?? false,
    ...(options.clock ? { clock: options.clock } : {}),
    untilStopSignal: () =>
      options.stopAfterMs === undefined
        ? new Promise(() => {})
        : Bun.sleep(options.stopAfterMs).then(() => "SIGINT"),
  };
  const code = await runCli(argv, io);
  return {
    code,
    stdout,
    stderr,
    json: <T>() => JSON.parse(stdout) as T,
  };
}

/**
 * A fresh working directory with an installed data dir (`svc migrate` made it), as an operator
 * has before running any other command: only serve, setup and migrate create a data dir.
 */
export async function installedDir(
  cwd: string,
  options: Omit<CliRunOptions, "cwd"> = {},
): Promise<string> {
  const run = await runSvc(["migrate"], { ...options, cwd });
  if (run.code !== 0) throw new Error(`svc migrate failed: ${run.stderr}`);
  return cwd;
}
