// A database handle that fails inside its write transactions, to prove that a failure rolls a
// whole transaction back, on either engine (no engine-specific trigger needed).
import type { Statement } from "bun:sqlite";
import { getTableName } from "drizzle-orm";
import type { Tables } from "../../src/db/schema.ts";
import type { Db } from "../../src/db/store.ts";

export interface FailingDb {
  db: Db;
  /** From now on, writes succeed again. */
  disarm(): void;
}

/**
 * Every insert into `table` inside a write transaction throws `message` while armed: drizzle's
 * builder and, on SQLite, a prepared statement of fixed text (Db.prepared) that inserts into it.
 */
export function failingInserts(
  db: Db,
  table: keyof Tables,
  message = "injected failure",
): FailingDb {
  let armed = true;
  const wrap = (tx: Db): Db => {
    const inserts = new RegExp(
      `^\\s*INSERT INTO\\s+[\`"]?${getTableName(tx.t[table])}[\`"]?[\\s(]`,
      "i",
    );
    const failing = (statement: Statement): Statement =>
      new Proxy(statement, {
        get(target, name) {
          const member = Reflect.get(target, name);
          if (typeof member !== "function") return member;
          return (...args: unknown[]) => {
            if (armed) throw new Error(message);
            return member.apply(target, args);
          };
        },
      });
    const wrapped: Db = Object.create(tx, {
      ...(tx.prepared
        ? {
            prepared: {
              value: (sqlText: string) => {
                const statement = (tx.prepared as (text: string) => Statement)(sqlText);
                return inserts.test(sqlText) ? failing(statement) : statement;
              },
            },
          }
        : {}),
      insert: {
        value: (target: Tables[keyof Tables]) => {
          if (armed && target === tx.t[table]) throw new Error(message);
          return tx.insert(target as never);
        },
      },
      write: { value: <T>(work: (inner: Db) => Promise<T>) => work(wrapped) },
    });
    return wrapped;
  };
  return {
    db: Object.create(db, {
      write: {
        value: <T>(work: (tx: Db) => Promise<T>, options?: Parameters<Db["write"]>[1]) =>
          db.write((tx) => work(wrap(tx)), options),
      },
    }),
    disarm() {
      armed = false;
    },
  };
}

/** The `n`-th write() (1-based) throws after its work has run, inside its transaction. */
export function failingWrite(db: Db, n: number, message = "injected failure"): Db {
  let calls = 0;
  return Object.create(db, {
    write: {
      value: <T>(work: (tx: Db) => Promise<T>, options?: Parameters<Db["write"]>[1]) => {
        const call = ++calls;
        return db.write(async (tx) => {
          const result = await work(tx);
          if (call === n) throw new Error(message);
          return result;
        }, options);
      },
    },
  });
}
