// An async mutex: callers run one at a time, in the order they asked. SQLite's writer connection
// uses it so that no other code's statements run inside an open transaction across an `await`.

export interface Mutex {
  /** Waits for the lock; call the returned function exactly once to release it. */
  acquire(): Promise<() => void>;
  /** True while someone holds the lock. */
  isLocked(): boolean;
}

export function createMutex(): Mutex {
  let tail: Promise<void> = Promise.resolve();
  let held = 0;
  return {
    acquire() {
      let release!: () => void;
      const next = new Promise<void>((resolve) => {
        release = resolve;
      });
      const ready = tail.then(() => {
        held++;
        let released = false;
        return () => {
          if (released) return;
          released = true;
          held--;
          release();
        };
      });
      tail = tail.then(() => next);
      return ready;
    },
    isLocked: () => held > 0,
  };
}
