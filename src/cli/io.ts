// What a CLI run talks to. The real process by default; tests pass their own.
import type { Readable, Writable } from "node:stream";
import type { Clock } from "../core/clock.ts";
import { createStderrSink, type LineSink, writeStderrSync } from "../log/sink.ts";

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Where log lines go when not to `stderr` line by line (the real process: batched stderr). */
  logSink?: LineSink;
  env: Record<string, string | undefined>;
  cwd: string;
  /** Whether a person is at the terminal (prompts allowed). */
  interactive: boolean;
  input?: Readable;
  output?: Writable;
  clock?: Clock;
  /** Resolves when the process is asked to stop (SIGINT/SIGTERM); `svc serve` waits on it. */
  untilStopSignal: () => Promise<string>;
}

export function processIo(): CliIo {
  const logSink = createStderrSink();
  return {
    stdout: (text) => process.stdout.write(text),
    // Messages and log lines share stderr: queued log lines go first, so the order holds.
    stderr: (text) => {
      logSink.flush();
      writeStderrSync(text);
    },
    logSink,
    env: process.env,
    cwd: process.cwd(),
    interactive: Boolean(process.stdin.isTTY && process.stdout.isTTY),
    input: process.stdin,
    output: process.stdout,
    untilStopSignal: () =>
      new Promise((resolve) => {
        const onSignal = (signal: string) => {
          process.off("SIGINT", onSignal);
          process.off("SIGTERM", onSignal);
          resolve(signal);
        };
        process.on("SIGINT", onSignal);
        process.on("SIGTERM", onSignal);
      }),
  };
}
