// The statement of fixed SQL text on a SQLite handle's connection (Db.prepared), for the hot
// paths that skip drizzle's building of each statement; a clear error on a handle without one.
import type { Statement } from "bun:sqlite";
import type { Db } from "./store.ts";

export function preparedStatement(db: Db, sqlText: string): Statement {
  if (!db.prepared) throw new Error("prepared statements are SQLite's");
  return db.prepared(sqlText);
}
