import type { CliIo } from "../../src/cli/io.ts";
import { runCli } from "../../src/cli/program.ts";
import type { Clock } from "../../src/clock.ts";
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
}

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
    untilStopSignal: () => new Promise(() => {}),
  };
  const code = await runCli(argv, io);
  return {
    code,
    stdout,
    stderr,
    json: <T>() => JSON.parse(stdout) as T,
  };
}
