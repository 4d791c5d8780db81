// The storage layer's transaction rule (db/store.ts), proven on the engine of this run and, where
// a property belongs to one engine, on that engine.
import { Database as SqliteConnection } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import { newId } from "../../src/core/ids.ts";
import { migrateDatabase } from "../../src/db/migrate.ts";
import { type AnyDatabase, type DatabaseSettings, openDatabase } from "../../src/db/open.ts";
import { isRetryable } from "../../src/db/postgres-store.ts";
import { openSqliteDatabase } from "../../src/db/sqlite-store.ts";
import { DatabaseBusyError, type Db, first } from "../../src/db/store.ts";
import { openTestDatabase, testEngine } from "../support/engine.ts";
import { makeTempDir } from "../support/temp.ts";

let database: AnyDatabase;
let settings: DatabaseSettings;
beforeAll(async () => {
  ({ database, settings } = await openTestDatabase());
  await migrateDatabase(database);
});
afterAll(() => database.close());

async function meta(db: Db, key: string): Promise<string | undefined> {
  const { instanceMeta } = db.t;
  const row = await first(db.select().from(instanceMeta).where(eq(instanceMeta.key, key)));
  return row?.value;
}

function putMeta(tx: Db, key: string, value: string) {
  return tx.insert(tx.t.instanceMeta).values({ key, value, updatedAt: new Date() });
}

describe(`the transaction rule (${testEngine})`, () => {
  test("a throw after an await rolls back every statement of the transaction", async () => {
    const key = `rollback-${newId()}`;
    await expect(
      database.db.write(async (tx) => {
        await putMeta(tx, key, "first");
        await Bun.sleep(5);
        await putMeta(tx, `${key}-second`, "second");
        await Bun.sleep(5);
        throw new Error("after the writes");
      }),
    ).rejects.toThrow("after the writes");
    expect(await meta(database.db, key)).toBeUndefined();
    expect(await meta(database.db, `${key}-second`)).toBeUndefined();
  });

  test("no statement of other code slips into an open transaction across an await: it waits, and survives the other's rollback", async () => {
    const key = `isolated-${newId()}`;
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const first = database.db.write(async (tx) => {
      await putMeta(tx, `${key}-a`, "a");
      await held;
      throw new Error("rolled back");
    });
    // Another write of the same process, started while the first is open and waiting.
    await Bun.sleep(10);
    const second = database.db.write((tx) => putMeta(tx, `${key}-b`, "b"));
    await Bun.sleep(10);
    release();
    await expect(first).rejects.toThrow("rolled back");
    await second;
    expect(await meta(database.db, `${key}-a`)).toBeUndefined();
    expect(await meta(database.db, `${key}-b`)).toBe("b");
  });

  test("inside a transaction, write() joins it: feature functions compose, and fail together", async () => {
    const key = `joined-${newId()}`;
    await expect(
      database.db.write(async (tx) => {
        await tx.write((inner) => putMeta(inner, key, "inner"));
        expect(await meta(tx, key)).toBe("inner");
        throw new Error("outer fails");
      }),
    ).rejects.toThrow("outer fails");
    expect(await meta(database.db, key)).toBeUndefined();
  });

  test("write() on the store from inside a transaction is refused with a clear error (it would wait for itself)", async () => {
    await expect(
      database.db.write(async () => database.db.write(async () => "never")),
    ).rejects.toThrow(/inside a write transaction: pass the transaction/);
  });

  test("a read outside a transaction sees a committed write at once, and never an uncommitted one", async () => {
    const key = `visible-${newId()}`;
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const open = database.db.write(async (tx) => {
      await putMeta(tx, key, "v");
      await held;
    });
    await Bun.sleep(10);
    expect(await meta(database.db, key)).toBeUndefined();
    release();
    await open;
    expect(await meta(database.db, key)).toBe("v");
  });
});

describe.if(testEngine === "sqlite")("SQLite: one writer, serialised", () => {
  test("the write lock's held time is counted per transaction purpose, a failed transaction included", async () => {
    const before = database.writeLockStats?.() ?? {};
    const count = (stats: typeof before, purpose: string) => stats[purpose]?.transactions ?? 0;
    await database.db.write((tx) => putMeta(tx, `lock-${newId()}`, "x"), { purpose: "probe" });
    await expect(
      database.db.write(
        async () => {
          throw new Error("rolled back");
        },
        { purpose: "probe" },
      ),
    ).rejects.toThrow("rolled back");
    await database.db.write((tx) => putMeta(tx, `lock-${newId()}`, "y"));
    const after = database.writeLockStats?.() ?? {};
    expect(count(after, "probe") - count(before, "probe")).toBe(2);
    expect(count(after, "other") - count(before, "other")).toBe(1);
  });

  test("a statement of fixed text is prepared once per connection: the same one on every call, the writer's only inside write()", async () => {
    const text = "SELECT value FROM instance_meta WHERE key = ?";
    const outside = database.db.prepared?.(text);
    expect(outside).toBeDefined();
    expect(database.db.prepared?.(text)).toBe(outside);
    const key = `prepared-${newId()}`;
    const inside = await database.db.write(async (tx) => {
      await putMeta(tx, key, "v");
      const statement = tx.prepared?.(text);
      expect(statement).not.toBe(outside);
      expect(tx.prepared?.(text)).toBe(statement);
      return statement?.all(key);
    });
    expect(inside).toEqual([{ value: "v" }]);
    expect(outside?.all(key)).toEqual([{ value: "v" }]);
  });

  test("a write outside write() fails at once: reads go through a read-only connection", async () => {
    const key = `outside-${newId()}`;
    await expect(
      (async () => {
        await putMeta(database.db, key, "x");
      })(),
    ).rejects.toThrow(/readonly|read-only/i);
  });

  test("while another process holds the write lock, write() waits without blocking the event loop, then commits", async () => {
    if (database.engine !== "sqlite") throw new Error("SQLite only");
    const other = new SqliteConnection(database.path);
    other.exec("BEGIN IMMEDIATE");
    const key = `waited-${newId()}`;
    const pending = database.db.write((tx) => putMeta(tx, key, "after the lock"));
    // Timers keep firing while the write waits for the lock.
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    await Bun.sleep(100);
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(5);
    expect(await meta(database.db, key)).toBeUndefined();
    other.exec("COMMIT");
    other.close();
    await pending;
    expect(await meta(database.db, key)).toBe("after the lock");
  });

  test("a write lock held by another process past the lock timeout ends in a DatabaseBusyError naming it", async () => {
    const store = openSqliteDatabase(`${makeTempDir("svc-busy")}/svc.db`, { lockTimeoutMs: 100 });
    try {
      await migrateDatabase(store);
      const other = new SqliteConnection(store.path);
      other.exec("BEGIN IMMEDIATE");
      try {
        const attempt = store.db.write((tx) => putMeta(tx, "busy", "x"));
        await expect(attempt).rejects.toBeInstanceOf(DatabaseBusyError);
        await expect(attempt).rejects.toThrow(/another process has held its write lock/);
      } finally {
        other.exec("ROLLBACK");
        other.close();
      }
    } finally {
      await store.close();
    }
  });
});

describe("SQLite: the counter other processes' commits move (the outbox relay's)", () => {
  test("it moves with another process's commit, never with this process's own, and leaves the writer free to begin", async () => {
    const store = openSqliteDatabase(`${makeTempDir("svc-others")}/svc.db`);
    try {
      await migrateDatabase(store);
      const counter = store.otherProcessesCounter as () => number;
      const before = counter();
      await store.db.write((tx) => putMeta(tx, "own", "this process"));
      expect(counter()).toBe(before);
      // The reader's counter (the caches') moves with another process's commit as well.
      const sharedBefore = store.changeCounter?.();
      const other = new SqliteConnection(store.path);
      other.exec("INSERT INTO instance_meta (key, value, updated_at) VALUES ('other', 'x', 0)");
      other.close();
      expect(counter()).not.toBe(before);
      // Read between writes, it leaves no transaction open on the writer.
      expect(store.writer.inTransaction).toBe(false);
      await store.db.write((tx) => putMeta(tx, "after", "still writable"));
      expect(await meta(store.db, "after")).toBe("still writable");
      await Bun.sleep(0);
      expect(store.changeCounter?.()).not.toBe(sharedBefore);
    } finally {
      await store.close();
    }
  });
});

describe.if(testEngine === "postgres")("PostgreSQL: serializable, retried", () => {
  test("a transaction that loses a serialization conflict is retried and both commit exactly once", async () => {
    const other = openDatabase(settings);
    try {
      const key = `counter-${newId()}`;
      await database.db.write((tx) => putMeta(tx, key, "0"));
      let attempts = 0;
      // Both first attempts read before either writes (a barrier, not a sleep: on a loaded
      // machine one transaction could otherwise finish before the other began).
      let reads = 0;
      let release = () => {};
      const bothRead = new Promise<void>((resolve) => {
        release = resolve;
      });
      const increment = (db: Db) =>
        db.write(async (tx) => {
          attempts++;
          const current = Number(await meta(tx, key));
          reads++;
          if (reads === 2) release();
          if (reads <= 2) await bothRead;
          await tx
            .update(tx.t.instanceMeta)
            .set({ value: String(current + 1) })
            .where(eq(tx.t.instanceMeta.key, key));
        });
      await Promise.all([increment(database.db), increment(other.db)]);
      expect(await meta(database.db, key)).toBe("2");
      // The loser ran again: the two read-modify-writes did not lose an update.
      expect(attempts).toBeGreaterThan(2);
    } finally {
      await other.close();
    }
  });

  test("a write() runs at the isolation level it asks for: serializable unless read committed is asked", async () => {
    const level = (options?: { isolation: "read committed" }) =>
      database.db.write(async (tx) => {
        const [row] = await tx.rows<{ level: string }>(
          sql`SELECT current_setting('transaction_isolation') AS level`,
        );
        return row?.level;
      }, options);
    expect(await level()).toBe("serializable");
    expect(await level({ isolation: "read committed" })).toBe("read committed");
  });

  test("commitWithWork: the work's statements run inside the transaction, COMMIT behind them; a failed statement commits nothing", async () => {
    const key = `with-work-${newId()}`;
    const insert = (tx: Db, k: string) =>
      tx.rows(
        sql`INSERT INTO instance_meta (key, value, updated_at) VALUES (${k}, 'v', ${Date.now()})`,
      );
    const [, [row]] = await database.db.write(
      (tx) =>
        Promise.all([
          insert(tx, key),
          tx.rows<{ level: string; xid: string | null }>(
            sql`SELECT current_setting('transaction_isolation') AS level,
              pg_current_xact_id_if_assigned()::text AS xid`,
          ),
        ]),
      { commitWithWork: true },
    );
    // The second statement ran in the transaction the insert opened, which then committed.
    expect(row?.level).toBe("serializable");
    expect(row?.xid).not.toBeNull();
    expect(await meta(database.db, key)).toBe("v");
    await expect(
      database.db.write(
        (tx) => Promise.all([insert(tx, `${key}-failed`), tx.rows(sql`SELECT 1 / 0`)]),
        { commitWithWork: true },
      ),
    ).rejects.toThrow();
    expect(await meta(database.db, `${key}-failed`)).toBeUndefined();
    // A statement started after the work's first await would follow COMMIT and run outside the
    // transaction: it is refused, and the write fails (a work that does this is a bug).
    await expect(
      database.db.write(
        async (tx) => {
          await insert(tx, `${key}-late`);
          await tx.rows(sql`SELECT 1`);
        },
        { commitWithWork: true },
      ),
    ).rejects.toThrow("a statement started after COMMIT was sent");
  });

  test("commitBehind: statements started after an answer leave with COMMIT behind them and run inside the transaction; none after it; a failed one commits nothing", async () => {
    const key = `behind-${newId()}`;
    const insert = (tx: Db, k: string) =>
      tx.rows(
        sql`INSERT INTO instance_meta (key, value, updated_at) VALUES (${k}, 'v', ${Date.now()})`,
      );
    const [row] = await database.db.write(async (tx) => {
      // The second statement depends on the first's answer, so COMMIT cannot leave with the work.
      const [first] = await tx.rows<{ xid: string }>(sql`SELECT pg_current_xact_id()::text AS xid`);
      const second = tx.rows<{ xid: string; first: string }>(
        sql`SELECT pg_current_xact_id()::text AS xid, ${first?.xid ?? ""} AS first`,
      );
      const inserted = insert(tx, key);
      tx.commitBehind?.();
      await inserted;
      return second;
    });
    expect(row?.first).toBe(row?.xid as string);
    expect(await meta(database.db, key)).toBe("v");
    await expect(
      database.db.write(async (tx) => {
        await tx.rows(sql`SELECT 1`);
        const failed = Promise.all([insert(tx, `${key}-failed`), tx.rows(sql`SELECT 1 / 0`)]);
        tx.commitBehind?.();
        return failed;
      }),
    ).rejects.toThrow();
    expect(await meta(database.db, `${key}-failed`)).toBeUndefined();
    await expect(
      database.db.write(async (tx) => {
        await tx.rows(sql`SELECT 1`);
        tx.commitBehind?.();
        await insert(tx, `${key}-late`);
      }),
    ).rejects.toThrow("a statement started after COMMIT was sent");
    expect(await meta(database.db, `${key}-late`)).toBeUndefined();
  });

  test("serialization failures and deadlocks are what is retried, also when drizzle wraps them", () => {
    const postgresError = (errno: string) => Object.assign(new Error("pg"), { errno });
    expect(isRetryable(postgresError("40001"))).toBe(true);
    expect(isRetryable(postgresError("40P01"))).toBe(true);
    expect(isRetryable(new Error("wrapped", { cause: postgresError("40001") }))).toBe(true);
    expect(isRetryable(postgresError("23505"))).toBe(false);
    expect(isRetryable(new Error("plain"))).toBe(false);
  });

  test("rows() returns what the driver gives, for what the builder cannot say", async () => {
    const [row] = await database.db.rows<{ one: number }>(sql`SELECT 1 AS one`);
    expect(Number(row?.one)).toBe(1);
  });
});
