// What feature code knows of the schema: the value sets, and the tables' types. The tables
// themselves come from the engine in use (`db.t`): schema/sqlite.ts or schema/postgres.ts, which
// declare the same names and give the same JavaScript values. Their types are spelled once,
// from the PostgreSQL declaration (see db/store.ts for why).
import type * as postgresTables from "./schema/postgres.ts";

export * from "./schema/values.ts";

export type Tables = typeof postgresTables;
export type TableName = keyof Tables;
/** A row as read: `Row<"apiKeys">`. */
export type Row<T extends TableName> = Tables[T]["$inferSelect"];
/** A row as written (defaults may be left out). */
export type NewRow<T extends TableName> = Tables[T]["$inferInsert"];
