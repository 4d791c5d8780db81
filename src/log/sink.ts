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
const newline = 0x0a;

/**
 * `writeChunk` gets the queued lines' UTF-8 bytes, each line ending in a newline. The lines are
 * encoded into one buffer as they come, so a write sends its bytes as they are: joining the lines
 * and encoding the joined text cost a busy server more than the write itself (BENCHMARKS.md). The
 * buffer is reused, so `writeChunk` must be done with a chunk when it returns.
 */
export function createBatchedSink(
  writeChunk: (chunk: Uint8Array) => void,
  options: BatchedSinkOptions = {},
): LineSink {
  const maxQueuedBytes = options.maxQueuedBytes ?? 64 * 1024;
  const schedule =
    options.schedule ??
    // Unreferenced: a queue never keeps the process alive (what is queued at exit is flushed).
    ((run: () => void) => void setTimeout(run, maxDelayMs).unref());
  // Room for the threshold and a line past it; a longer line grows it until the next write.
  const roomBytes = maxQueuedBytes + 16 * 1024;
  let buffer = Buffer.allocUnsafe(roomBytes);
  let used = 0;
  let scheduled = false;
  const flush = () => {
    if (used === 0) return;
    const chunk = buffer.subarray(0, used);
    used = 0;
    writeChunk(chunk);
    if (buffer.length > roomBytes) buffer = Buffer.allocUnsafe(roomBytes);
  };
  return {
    write(line) {
      // UTF-8 takes at most 3 bytes per UTF-16 code unit, and the newline one.
      const mostBytes = line.length * 3 + 1;
      if (used + mostBytes > buffer.length) {
        const grown = Buffer.allocUnsafe(Math.max(buffer.length * 2, used + mostBytes));
        grown.set(buffer.subarray(0, used));
        buffer = grown;
      }
      // Buffer#write encodes at an offset: no view and no result object per line.
      used += buffer.write(line, used);
      buffer[used++] = newline;
      if (used >= maxQueuedBytes) flush();
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
 * rest goes to process.stderr, which queues a copy of it.
 */
export function writeStderrSync(text: string | Uint8Array): void {
  const bytes = typeof text === "string" ? Buffer.from(text) : text;
  let offset = 0;
  try {
    while (offset < bytes.length) offset += writeSync(2, bytes, offset);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EAGAIN") process.stderr.write(bytes.slice(offset));
    else if (code !== "EPIPE") throw error;
  }
}

/** The process's stderr as a batched sink, flushed when the process exits. Create it once. */
export function createStderrSink(): LineSink {
  const sink = createBatchedSink(writeStderrSync);
  process.on("exit", () => sink.flush());
  return sink;
}
