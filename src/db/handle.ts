// Builds the `Db` handles both engines hand out: drizzle's own database (or transaction) object
// as the prototype, with the storage layer's members on top. Nothing of drizzle's is changed;
// its builder methods find their session and dialect through the prototype.
import type { Statement } from "bun:sqlite";
import type { SQL } from "drizzle-orm";
import type { Tables } from "./schema.ts";
import type { Db, Engine, WriteOptions } from "./store.ts";

export interface HandleMembers {
  engine: Engine;
  t: Tables;
  inTransaction: boolean;
  write<T>(work: (tx: Db) => Promise<T>, options?: WriteOptions): Promise<T>;
  rows<T>(query: SQL): Promise<T[]>;
  prepared?: (sqlText: string) => Statement;
  commitBehind?: () => void;
}

export function makeHandle(drizzleObject: object, members: HandleMembers): Db {
  return Object.create(drizzleObject, {
    engine: { value: members.engine, enumerable: true },
    t: { value: members.t, enumerable: true },
    inTransaction: { value: members.inTransaction, enumerable: true },
    write: { value: members.write },
    rows: { value: members.rows },
    prepared: { value: members.prepared },
    commitBehind: { value: members.commitBehind },
  }) as Db;
}

/** Inside a transaction, `write()` joins it: feature functions compose without nesting. */
export function joinTransaction(tx: () => Db) {
  return <T>(work: (tx: Db) => Promise<T>): Promise<T> => work(tx());
}

/** The handle a `write()` callback receives: its `write()` joins the transaction. */
export function transactionHandle(
  drizzleObject: object,
  members: Pick<HandleMembers, "engine" | "t" | "rows" | "prepared" | "commitBehind">,
): Db {
  const tx: Db = makeHandle(drizzleObject, {
    ...members,
    inTransaction: true,
    write: joinTransaction(() => tx),
  });
  return tx;
}
