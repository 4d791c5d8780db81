// A cheap number that moves whenever the database may have changed, by a commit of this process
// or of any other (the CLI next to the server). Caches keyed on it can never serve stale data, so
// a revoke or a sync anywhere takes effect on the very next request.
//
// Only SQLite's own counters are read, through SQLite (~2 µs, once per request): PRAGMA
// data_version moves when another connection commits, total_changes() with every row this
// connection writes. Never a handle, mapping or read of SQLite's files behind its back: closing
// any handle of a file drops every POSIX lock the process holds on it, SQLite's included, and a
// mapping of the -shm file faults (SIGBUS) when another process rebuilds it
// (https://www.sqlite.org/howtocorrupt.html, section 2.2).
import type { Database } from "./open.ts";

export interface DataGeneration {
  /** Moves after any commit by any connection; an equal number means nothing changed in between. */
  current(): number;
}

export function createDataGeneration(database: Database): DataGeneration {
  // Two statements: measured faster than one SELECT over pragma_data_version.
  const dataVersion = database.sqlite.prepare<[number], []>("PRAGMA data_version");
  const totalChanges = database.sqlite.prepare<[number], []>("SELECT total_changes()");
  let lastDataVersion = -1;
  let lastTotalChanges = -1;
  let generation = 0;
  return {
    current() {
      const version = Number(dataVersion.values()[0]?.[0]);
      const changes = Number(totalChanges.values()[0]?.[0]);
      if (version !== lastDataVersion || changes !== lastTotalChanges) {
        lastDataVersion = version;
        lastTotalChanges = changes;
        generation += 1;
      }
      return generation;
    },
  };
}

/** A bounded map whose entries are valid only for the generation they were stored at. */
export interface GenerationCache<V> {
  get(key: string, generation: number): V | undefined;
  set(key: string, generation: number, value: V): void;
}

/** Bounds: at most `maxEntries`, and with `sizeOf`, at most `maxSize` in total (oldest go first). */
export interface GenerationCacheLimits<V> {
  maxEntries: number;
  maxSize?: number;
  sizeOf?: (value: V) => number;
}

export function createGenerationCache<V>(limits: GenerationCacheLimits<V>): GenerationCache<V> {
  const { maxEntries, maxSize = Number.POSITIVE_INFINITY, sizeOf = () => 0 } = limits;
  let stored = -1;
  let totalSize = 0;
  const entries = new Map<string, V>();
  const remove = (key: string) => {
    const value = entries.get(key);
    if (value === undefined) return;
    totalSize -= sizeOf(value);
    entries.delete(key);
  };
  return {
    get(key, generation) {
      if (generation !== stored) return undefined;
      return entries.get(key);
    },
    set(key, generation, value) {
      // A new generation makes every older entry worthless: drop them all at once.
      if (generation !== stored) {
        entries.clear();
        totalSize = 0;
        stored = generation;
      }
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
