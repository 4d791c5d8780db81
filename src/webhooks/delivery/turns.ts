// The dispatcher's turns of work (scheduling wake-ups): a turn records what finished and claims
// into the freed slots. Wake-ups are coalesced over `batchDelayMs`, so a burst of completions or
// of new events costs one transaction each way instead of one per delivery (writes on the hot
// path are batched), and turns run one after another: a turn waiting for the database delays the
// next, never overlaps it.

export interface Turns {
  /** Runs `work` after every turn before it; its result or error is the caller's alone. */
  run<T>(work: () => Promise<T>): Promise<T>;
  /** Runs `work` as a turn `batchDelayMs` from now, unless such a turn is already due. */
  wake(): void;
  /** Resolves once every turn started so far has ended. */
  settled(): Promise<void>;
}

export function createTurns(work: () => Promise<void>, batchDelayMs: number): Turns {
  /** The last turn started: the next one waits for it. */
  let last: Promise<void> = Promise.resolve();
  let wakeDue = false;
  const run = <T>(next: () => Promise<T>): Promise<T> => {
    const result = last.then(next);
    last = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  };
  return {
    run,
    wake() {
      if (wakeDue) return;
      wakeDue = true;
      setTimeout(() => {
        wakeDue = false;
        void run(work);
      }, batchDelayMs);
    },
    settled: () => last,
  };
}
