// De-duplication for receivers (spec §4 rules 4 and 5): an event id is acted on once, and a
// transaction id is stored once. Kept in SQLite so a receiver restart does not forget.
import { Database } from "bun:sqlite";

export interface SeenStore {
  /** Records the id; true when it is new, false when it was seen before. */
  firstTime(kind: "event" | "transaction", id: string): boolean;
  close(): void;
}

export function openSeenStore(path: string): SeenStore {
  const db = new Database(path, { create: true, strict: true });
  db.exec("PRAGMA journal_mode = WAL");
  db.exec(
    "CREATE TABLE IF NOT EXISTS seen (kind TEXT NOT NULL, id TEXT NOT NULL, seen_at INTEGER NOT NULL, PRIMARY KEY (kind, id))",
  );
  const insert = db.query("INSERT OR IGNORE INTO seen (kind, id, seen_at) VALUES (?, ?, ?)");
  return {
    firstTime(kind, id) {
      return insert.run(kind, id, Date.now()).changes === 1;
    },
    close() {
      db.close();
    },
  };
}
