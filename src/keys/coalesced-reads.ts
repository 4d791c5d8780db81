// Reads that concurrent requests share (the key check on PostgreSQL, where no change counter
// tells that nothing was committed). A caller is answered only by a read *sent after it asked*,
// never by one already under way, so whatever was committed before its request arrived is seen
// (spec 3: a revoked key is refused on the very next request, on every instance). At most one
// read is under way; every caller that asks meanwhile joins the next one, which is sent as soon
// as the current one is answered: under load one round trip serves many requests, and an idle
// server sends at once.

/** Reads the values of several keys in one round trip (keys not found are absent). */
export type ReadMany<K, V> = (keys: K[]) => Promise<Map<K, V>>;

interface Waiter<V> {
  resolve(value: V | undefined): void;
  reject(error: unknown): void;
}

export function coalescedReads<K, V>(readMany: ReadMany<K, V>): (key: K) => Promise<V | undefined> {
  /** The callers of the read not sent yet, by key. */
  let next: Map<K, Waiter<V>[]> | undefined;
  let underWay = false;
  const send = (): void => {
    const batch = next;
    next = undefined;
    underWay = batch !== undefined;
    if (!batch) return;
    let read: Promise<Map<K, V>>;
    try {
      read = readMany([...batch.keys()]);
    } catch (error) {
      read = Promise.reject(error);
    }
    read.then(
      (found) => {
        for (const [key, waiters] of batch) {
          for (const waiter of waiters) waiter.resolve(found.get(key));
        }
        send();
      },
      (error: unknown) => {
        for (const waiters of batch.values()) for (const waiter of waiters) waiter.reject(error);
        send();
      },
    );
  };
  return (key) =>
    new Promise<V | undefined>((resolve, reject) => {
      next ??= new Map();
      const waiters = next.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else next.set(key, [{ resolve, reject }]);
      if (!underWay) send();
    });
}
