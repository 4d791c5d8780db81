// Background checkpoints (db/sqlite-checkpoints.ts): while they run the writer never checkpoints
// inside a commit and the worker copies the WAL into the file; once stopped, or if the worker
// fails, the writer checkpoints by itself again. SQLite only: PostgreSQL has nothing to do.
import { afterEach, describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { join } from "node:path";
import { startBackgroundCheckpoints } from "../../src/db/sqlite-checkpoints.ts";
import { openSqliteDatabase, type SqliteDatabase } from "../../src/db/sqlite-store.ts";
import { makeTempDir } from "../support/temp.ts";

const writerPages = (database: SqliteDatabase) =>
  Number(database.writer.query("PRAGMA wal_autocheckpoint").values()[0]?.[0]);

let database: SqliteDatabase | undefined;
afterEach(async () => {
  await database?.close();
  database = undefined;
});

async function fillWal(db: SqliteDatabase, rows: number): Promise<void> {
  await db.exclusive((writer) => writer.exec("CREATE TABLE IF NOT EXISTS filler (text TEXT)"));
  for (let i = 0; i < rows; i++) {
    await db.exclusive((writer) => {
      writer.run("INSERT INTO filler VALUES (?)", ["x".repeat(4000)]);
    });
  }
}

describe("background checkpoints (SQLite)", () => {
  test("the worker copies the WAL into the file while the writer never checkpoints; stop gives it back", async () => {
    const path = join(makeTempDir(), "checkpoints.db");
    database = openSqliteDatabase(path);
    const job = startBackgroundCheckpoints(database, { everyMs: 10 });
    expect(writerPages(database)).toBe(0);
    const before = statSync(path).size;
    // ~400 pages: below the writer's own threshold, so only the worker can have copied them.
    await fillWal(database, 100);
    const deadline = performance.now() + 10_000;
    while (statSync(path).size < before + 100 * 4000 && performance.now() < deadline) {
      await Bun.sleep(10);
    }
    expect(statSync(path).size).toBeGreaterThanOrEqual(before + 100 * 4000);
    await job.stop();
    expect(writerPages(database)).toBe(1000);
  });

  test("a worker that cannot checkpoint hands checkpoints back to the writer and says why", async () => {
    const path = join(makeTempDir(), "checkpoints.db");
    database = openSqliteDatabase(path);
    const failures: string[] = [];
    const job = startBackgroundCheckpoints(
      { ...database, path: join(path, "not-a-file", "x.db") } as SqliteDatabase,
      { everyMs: 10, onFailure: (message) => failures.push(message) },
    );
    const deadline = performance.now() + 10_000;
    while (failures.length === 0 && performance.now() < deadline) await Bun.sleep(10);
    expect(failures.length).toBe(1);
    expect(writerPages(database)).toBe(1000);
    await job.stop();
  });
});
