// A `Db` that records the raw statements it and its transactions send (`rows()`), in order, for
// tests of what leaves for the database and when: "begin" where each transaction starts, each
// statement with the number of statements answered before it was sent, and "commit behind"
// where a transaction's work sent COMMIT behind its statements (Db.commitBehind).
import type { SQL } from "drizzle-orm";
import type { Db } from "../../src/db/store.ts";

export type Sent =
  | { kind: "begin" }
  | { kind: "statement"; query: SQL; answeredBefore: number }
  | { kind: "commit behind" };

export function recordingDb(db: Db, sent: Sent[]): Db {
  let answered = 0;
  const wrap = (handle: Db): Db =>
    Object.create(handle, {
      rows: {
        value: (query: SQL) => {
          sent.push({ kind: "statement", query, answeredBefore: answered });
          return handle.rows(query).finally(() => {
            answered++;
          });
        },
      },
      write: {
        value: (work: (tx: Db) => Promise<unknown>, options?: object) =>
          handle.write((tx) => {
            sent.push({ kind: "begin" });
            return work(wrap(tx));
          }, options),
      },
      commitBehind: {
        value:
          handle.commitBehind &&
          (() => {
            sent.push({ kind: "commit behind" });
            handle.commitBehind?.();
          }),
      },
    });
  return wrap(db);
}
