// SQLite's checkpoints off the event loop, in the serving process. By default the connection
// whose commit takes the WAL past 1,000 pages copies it into the database file inside that
// COMMIT (fsyncs included), and the event loop stops meanwhile: a delivery turn's COMMIT took
// 20-60 ms about once in 25 under load, every send and request waiting behind it. Here the
// writer never checkpoints; a worker thread with a connection of its own runs a PASSIVE
// checkpoint every `everyMs` (PASSIVE waits for no one: readers and the writer go on). The
// durability is the same (WAL, synchronous=NORMAL). If the worker fails, or once stopped, the
// writer checkpoints by itself again. Other processes on the file (the CLI) keep checkpointing
// their own commits as before.
import type { BackgroundJob } from "../core/background-job.ts";
import type { AnyDatabase } from "./open.ts";

/** How often the worker checkpoints: a few hundred ms of commits at most stand in the WAL. */
const defaultEveryMs = 250;
/** SQLite's default: the writer checkpoints by itself past this many WAL pages. */
const writerCheckpointPages = 1000;
/** How long stop() waits for the worker to close its connection before ending it. */
const stopWaitMs = 2_000;

// The worker's code as text, so the compiled binary needs no entry point of its own for it.
const workerSource = `
const { Database } = require("bun:sqlite");
let db;
let timer;
self.onmessage = (event) => {
  if (event.data === "stop") {
    clearInterval(timer);
    try { db?.close(); } finally { postMessage("stopped"); }
    return;
  }
  const { path, everyMs } = event.data;
  db = new Database(path, { strict: true });
  db.exec("PRAGMA busy_timeout = 0");
  const checkpoint = db.prepare("PRAGMA wal_checkpoint(PASSIVE)");
  timer = setInterval(() => {
    try {
      checkpoint.values();
    } catch (error) {
      clearInterval(timer);
      postMessage({ failed: String(error && error.message || error) });
    }
  }, everyMs);
};
`;

/**
 * Checkpoints the SQLite file from a worker thread until stopped; nothing on PostgreSQL.
 * `onFailure` hears why the worker stopped checkpointing (the writer has taken over).
 */
export function startBackgroundCheckpoints(
  database: AnyDatabase,
  options: { everyMs?: number; onFailure?: (message: string) => void } = {},
): BackgroundJob {
  const name = "sqlite-checkpoints";
  if (database.engine !== "sqlite") return { name, stop: async () => undefined };
  const writerCheckpoints = (pages: number) => {
    if (database.isOpen()) database.writer.exec(`PRAGMA wal_autocheckpoint = ${pages}`);
  };
  const url = URL.createObjectURL(new Blob([workerSource], { type: "application/javascript" }));
  const worker = new Worker(url);
  let stopped = false;
  const takeOver = (message: string) => {
    if (stopped) return;
    stopped = true;
    writerCheckpoints(writerCheckpointPages);
    worker.terminate();
    options.onFailure?.(message);
  };
  worker.addEventListener("message", (event: MessageEvent) => {
    const data = event.data as { failed?: string } | string;
    if (typeof data === "object" && data.failed) takeOver(data.failed);
  });
  worker.addEventListener("error", (event: ErrorEvent) => takeOver(event.message));
  worker.postMessage({ path: database.path, everyMs: options.everyMs ?? defaultEveryMs });
  writerCheckpoints(0);
  // The worker alone keeps no process alive (Bun's Worker has unref; the DOM's type does not).
  (worker as unknown as { unref(): void }).unref();
  return {
    name,
    async stop() {
      if (stopped) return;
      stopped = true;
      writerCheckpoints(writerCheckpointPages);
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        new Promise<void>((resolve) => {
          worker.addEventListener("message", (event: MessageEvent) => {
            if (event.data === "stopped") resolve();
          });
          worker.postMessage("stop");
        }),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, stopWaitMs);
        }),
      ]);
      clearTimeout(timer);
      worker.terminate();
      URL.revokeObjectURL(url);
    },
  };
}
