// Where log lines go in a running process: stderr, written in batches. A busy server logs a line
// per request, and one write to journald's pipe costs ~2 µs plus waking the reader (BENCHMARKS.md),
// so the lines queued within 10 ms go out in one write, and at once when 64 KiB are waiting (a
// write per turn of the event loop cost the cached read ~5-10 µs of CPU per request: a busy
// server's turns hold only a few requests each).
// Warnings and errors are written at once, together with the lines before them, and so is
// everything still waiting when the process exits. Writes are synchronous (fs.writeSync): with
// process.stderr.write, Bun drops what a pipe has not taken yet when the process exits.
import { writeSync } from "node:fs";

export interface LineSink {
  /** Queues one line (without its newline). */
  write(line: string): void;
  /** Writes everything queued, now. */
  flush(): void;
}

export interface BatchedSinkOptions {
  /** Queued bytes that trigger a write at once. */
  maxQueuedBytes?: number;
  /** Runs a function once the queue's first line has waited `maxDelayMs` (tests pass their own). */
  schedule?: (run: () => void) => void;
}

/** How long a queued line waits at most (bar a `kill -9`, which can cut off this much). */
const maxDelayMs = 10;

export function createBatchedSink(
  writeChunk: (chunk: string) => void,
  options: BatchedSinkOptions = {},
): LineSink {
  const maxQueuedBytes = options.maxQueuedBytes ?? 64 * 1024;
  const schedule =
    options.schedule ??
    // Unreferenced: a queue never keeps the process alive (what is queued at exit is flushed).
    ((run: () => void) => void setTimeout(run, maxDelayMs).unref());
  let queued: string[] = [];
  let queuedBytes = 0;
  let scheduled = false;
  const flush = () => {
    if (queued.length === 0) return;
    const chunk = `${queued.join("\n")}\n`;
    queued = [];
    queuedBytes = 0;
    writeChunk(chunk);
  };
  return {
    write(line) {
      queued.push(line);
      queuedBytes += line.length + 1;
      if (queuedBytes >= maxQueuedBytes) flush();
      else if (!scheduled) {
        scheduled = true;
        schedule(() => {
          scheduled = false;
          flush();
        });
      }
    },
    flush,
  };
}

/**
 * Writes all of `text` to stderr synchronously. A log must never stop the service: when stderr
 * is gone (EPIPE) the text is dropped; when it is a non-blocking pipe that is full (EAGAIN) the
 * rest goes to process.stderr, which queues it.
 */
export function writeStderrSync(text: string): void {
  const bytes = Buffer.from(text);
  let offset = 0;
  try {
    while (offset < bytes.length) offset += writeSync(2, bytes, offset);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EAGAIN") process.stderr.write(bytes.subarray(offset));
    else if (code !== "EPIPE") throw error;
  }
}

/** The process's stderr as a batched sink, flushed when the process exits. Create it once. */
export function createStderrSink(): LineSink {
  const sink = createBatchedSink(writeStderrSync);
  process.on("exit", () => sink.flush());
  return sink;
}
