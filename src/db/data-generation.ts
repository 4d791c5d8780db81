// A cheap number that moves whenever the database may have changed, by a commit of this process
// or of any other (the CLI next to the server). Caches keyed on it can never serve stale data, so
// a revoke or a sync anywhere takes effect on the very next request.
//
// Read on every /v1 request, so it has a fast way and a fallback:
// - WAL-index header (fast, ~0.03 µs): in WAL mode every commit, by any connection, rewrites the
//   header at the start of the `-shm` file (iChange counts commits; mxFrame, salts and checksums
//   move too; https://www.sqlite.org/walformat.html). The file is mapped read-only in spirit
//   (never written) and one copy of the 48-byte header is compared with the last one seen.
//   SQLite writes the first copy last, so a header that still reads as before means that no
//   commit had finished when it was read. Mapped only while this connection is open: SQLite keeps
//   the file's size while any connection holds it.
// - PRAGMA data_version + total_changes() (~2 µs): data_version moves when another connection
//   commits, total_changes() with every row this connection writes. Used when there is no
//   WAL-index to read (an in-memory database, another VFS, an unknown header version).
import { realpathSync } from "node:fs";
import type { Database } from "./open.ts";

export interface DataGeneration {
  /** Moves after any commit by any connection; an equal number means nothing changed in between. */
  current(): number;
  /** Which way changes are detected now (for diagnostics and tests). */
  readonly source: "wal-index" | "pragma";
}

/** WalIndexHdr.iVersion of every SQLite since 3.7.0. */
const walIndexVersion = 3007000;
/** One copy of the WAL-index header: 48 bytes. */
const headerWords = 12;

export function createDataGeneration(database: Database): DataGeneration {
  return walIndexGeneration(database) ?? pragmaGeneration(database);
}

export interface WalIndexOptions {
  /** The WAL-index file; by default the one SQLite uses, next to the real database file. */
  shmPath?: string;
  /** How often the header is audited against SQLite's own counters (default 1 s). */
  auditIntervalMs?: number;
  nowMs?: () => number;
}

/**
 * The WAL-index way, or undefined when this database has no WAL-index to read. Audited: once a
 * second it checks that SQLite's own counters did not move while the header stood still (which
 * would mean the mapped file is not the one SQLite writes); if they did, it answers with the
 * PRAGMA way from then on, so a wrong mapping can cost speed but never freshness for long.
 */
export function walIndexGeneration(
  database: Database,
  options: WalIndexOptions = {},
): DataGeneration | undefined {
  if (database.path === ":memory:") return undefined;
  const mode = database.sqlite.prepare<{ journal_mode: string }, []>("PRAGMA journal_mode").get();
  if (mode?.journal_mode !== "wal") return undefined;
  let header: Uint32Array;
  try {
    // SQLite names the file after the real path of the database (symbolic links resolved).
    const shmPath = options.shmPath ?? `${realpathSync(database.path)}-shm`;
    const mapped = Bun.mmap(shmPath, { shared: true, size: headerWords * 4 });
    if (mapped.byteLength < headerWords * 4) return undefined;
    header = new Uint32Array(mapped.buffer, mapped.byteOffset, headerWords);
  } catch {
    return undefined;
  }
  if (header[0] !== walIndexVersion) return undefined;
  const auditIntervalMs = options.auditIntervalMs ?? 1000;
  const nowMs = options.nowMs ?? Date.now;
  const fallback = pragmaGeneration(database);
  const seen = new Uint32Array(headerWords);
  let generation = 0;
  let trusted = true;
  let nextAuditAt = 0;
  let auditedFallback = fallback.current();
  let auditedGeneration = 0;
  const readHeader = () => {
    let changed = false;
    for (let i = 0; i < headerWords; i++) {
      const word = header[i] as number;
      if (word !== seen[i]) {
        seen[i] = word;
        changed = true;
      }
    }
    if (changed) generation += 1;
  };
  const audit = () => {
    // SQLite's counters first: a commit they show has already rewritten the header, so a
    // header that still stands after it is not the one SQLite writes (a rolled-back write also
    // moves total_changes(); that only costs the fast path).
    const counters = fallback.current();
    readHeader();
    if (counters !== auditedFallback && generation === auditedGeneration) trusted = false;
    auditedFallback = counters;
    auditedGeneration = generation;
  };
  return {
    get source() {
      return trusted ? "wal-index" : "pragma";
    },
    current() {
      // After close another process may shrink the file; never touch the mapping then.
      if (!database.isOpen()) throw new Error("the database is closed");
      if (!trusted) return generation + fallback.current();
      const now = nowMs();
      if (now >= nextAuditAt) {
        nextAuditAt = now + auditIntervalMs;
        audit();
        // Distrusted: counting goes on from the fallback's numbers, never back below.
        if (!trusted) return generation + fallback.current();
      } else readHeader();
      return generation;
    },
  };
}

/** The fallback way; works on any database. */
export function pragmaGeneration(database: Database): DataGeneration {
  // Two statements: measured faster than one SELECT over pragma_data_version.
  const dataVersion = database.sqlite.prepare<[number], []>("PRAGMA data_version");
  const totalChanges = database.sqlite.prepare<[number], []>("SELECT total_changes()");
  let lastDataVersion = -1;
  let lastTotalChanges = -1;
  let generation = 0;
  return {
    source: "pragma",
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
