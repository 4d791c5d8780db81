// `column IN (ids)` for batches of ids (claims, outcome batches). On SQLite the list goes as one
// JSON parameter read by json_each: a statement of constant size, where drizzle's `inArray`
// builds and binds one parameter per id (a measurable share of a 64-row batch's CPU). On
// PostgreSQL `inArray` as before.
import { type Column, inArray, type SQL, sql } from "drizzle-orm";
import type { Db } from "./store.ts";

export function idIn(db: Pick<Db, "engine">, column: Column, ids: readonly string[]): SQL {
  if (db.engine === "sqlite") {
    return sql`${column} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`;
  }
  return inArray(column, [...ids]);
}
