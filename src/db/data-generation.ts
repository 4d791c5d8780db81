// A cheap token that changes whenever the database may have changed: SQLite's data_version moves
// when any other connection (the CLI, another process) commits, and total_changes() moves with
// every row this connection writes. Caches keyed on it can never serve stale data, so a revoke
// or a sync anywhere takes effect on the very next request.
import type { Database } from "./open.ts";

export interface DataGeneration {
  /** Changes after any commit by any connection; equal values mean nothing changed in between. */
  current(): string;
}

export function createDataGeneration(database: Database): DataGeneration {
  // Two statements: measured faster than one SELECT over pragma_data_version.
  const dataVersion = database.sqlite.prepare<[number], []>("PRAGMA data_version");
  const totalChanges = database.sqlite.prepare<[number], []>("SELECT total_changes()");
  return {
    current() {
      return `${dataVersion.values()[0]?.[0]}:${totalChanges.values()[0]?.[0]}`;
    },
  };
}

/** A bounded map whose entries are valid only for the generation they were stored at. */
export interface GenerationCache<V> {
  get(key: string, generation: string): V | undefined;
  set(key: string, generation: string, value: V): void;
}

export function createGenerationCache<V>(maxEntries: number): GenerationCache<V> {
  let stored = "";
  const entries = new Map<string, V>();
  return {
    get(key, generation) {
      if (generation !== stored) return undefined;
      return entries.get(key);
    },
    set(key, generation, value) {
      // A new generation makes every older entry worthless: drop them all at once.
      if (generation !== stored) {
        entries.clear();
        stored = generation;
      }
      if (entries.size >= maxEntries) {
        const oldest = entries.keys().next().value;
        if (oldest !== undefined) entries.delete(oldest);
      }
      entries.set(key, value);
    },
  };
}
