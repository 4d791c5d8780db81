// Synchronous reads (SQLite's prepared statements) asked for during one turn of the event loop,
// run back to back after it instead of one at a time between the other work of each request. A
// statement that follows another keeps SQLite's code and the B-tree's upper pages in the core's
// caches; one that follows the rest of a request (body copies, socket buffers, allocations)
// finds them cold and costs ~1.6x (BENCHMARKS.md, 2026-11-28 and 2026-12-03). Under load a turn
// carries many requests, so their reads share one warm run; alone, a read waits only for the
// end of its turn and one empty poll.
//
// The run waits for the next turn's poll too: a batch's answers leave together at its end, so
// the clients whose answers left last ask again just after the following poll. With the run
// right after the turn (one setImmediate) those requests (4-6 of 32 under wrk -c32) missed the
// batch and waited two; now the next poll's requests join it and every request waits one: under
// wrk -c32 over uncached first pages, batches of 32 instead of 26-32, p90 7.4 -> 5.1-5.8 ms and
// p99 11.1 -> 7.3-8.9 ms at the same rate; one request alone, no change (BENCHMARKS.md,
// 2026-12-08).

export interface TurnBatch {
  /** Runs `read` with the turn's other reads; its value or its error is this caller's alone. */
  run<T>(read: () => T): Promise<T>;
}

interface Queued {
  read: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** Runs `run` after this turn's I/O and the next turn's poll. */
const afterNextPoll = (run: () => void): void => {
  setImmediate(() => setImmediate(run));
};

/** `schedule` runs the queued reads after the turn (tests pass their own). */
export function createTurnBatch(schedule: (run: () => void) => void = afterNextPoll): TurnBatch {
  let queued: Queued[] = [];
  const runQueued = () => {
    const batch = queued;
    queued = [];
    // Every read first, then every answer: resolving wakes each caller's continuation (its body,
    // its headers), which would run between the reads and cool them again.
    const outcomes = batch.map(({ read }) => {
      try {
        return { ok: true as const, value: read() };
      } catch (error) {
        return { ok: false as const, error };
      }
    });
    batch.forEach((item, i) => {
      const outcome = outcomes[i] as (typeof outcomes)[number];
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.error);
    });
  };
  return {
    run<T>(read: () => T): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        if (queued.length === 0) schedule(runQueued);
        queued.push({ read, resolve: resolve as (value: unknown) => void, reject });
      });
    },
  };
}
