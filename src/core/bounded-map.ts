// A map bounded by entry count and, optionally, by the total size of its values: the oldest
// entries go first to make room. Holds remembered /v1 answers (api/middleware/answer-store.ts).

export interface BoundedCache<V> {
  get(key: string): V | undefined;
  set(key: string, value: V): void;
}

export interface BoundedCacheLimits<V> {
  maxEntries: number;
  maxSize?: number;
  sizeOf?: (value: V) => number;
}

export function createBoundedCache<V>(limits: BoundedCacheLimits<V>): BoundedCache<V> {
  const { maxEntries, maxSize = Number.POSITIVE_INFINITY, sizeOf = () => 0 } = limits;
  let totalSize = 0;
  const entries = new Map<string, V>();
  const remove = (key: string) => {
    const value = entries.get(key);
    if (value === undefined) return;
    totalSize -= sizeOf(value);
    entries.delete(key);
  };
  return {
    get: (key) => entries.get(key),
    set(key, value) {
      const size = sizeOf(value);
      if (size > maxSize) return;
      remove(key);
      while (entries.size > 0 && (entries.size >= maxEntries || totalSize + size > maxSize)) {
        remove(entries.keys().next().value as string);
      }
      entries.set(key, value);
      totalSize += size;
    },
  };
}
