// The read-API rate limit across processes on one database (issue 16): each process decides in
// memory and shares its counts every sync, so N processes do not multiply a key's limit by N.
import { afterAll, describe, expect, test } from "bun:test";
import { createSharedKeyRateLimiter } from "../../src/api/shared-rate-limit.ts";
import { openDatabase } from "../../src/db/open.ts";
import { createFakeClock } from "../support/fake-clock.ts";
import { createTestServices } from "../support/services.ts";

const clock = createFakeClock();
const services = await createTestServices({ clock });
const other = openDatabase(services.config);
afterAll(async () => {
  await other.close();
  await services.database.close();
});

function limiter(db: typeof services.db) {
  const shared = createSharedKeyRateLimiter(
    { db, clock, isOpen: () => true, onSyncError: (error) => console.error(error) },
    5,
    3_600_000, // synced by hand below
  );
  afterAll(() => shared.close());
  return shared;
}

describe("the read-API rate limit shared through the database", () => {
  test("uses counted by one process are refused by another after a sync; totals add up across processes", async () => {
    clock.set("2026-11-25T10:00:05.000Z");
    const a = limiter(services.db);
    const b = limiter(other.db);
    for (let i = 0; i < 3; i++) expect(a.consume("key-1").allowed).toBe(true);
    expect(b.consume("key-1").allowed).toBe(true);
    await a.sync();
    await b.sync(); // b learns the total after a added its uses
    // 4 used in all: one more is allowed anywhere, then every process refuses.
    expect(b.consume("key-1")).toMatchObject({ allowed: true, remaining: 0 });
    await b.sync();
    await a.sync();
    expect(a.consume("key-1").allowed).toBe(false);
    expect(b.consume("key-1").allowed).toBe(false);
    // Another key and the next minute are counted afresh.
    expect(a.consume("key-2").allowed).toBe(true);
    clock.set("2026-11-25T10:01:00.000Z");
    expect(a.consume("key-1").allowed).toBe(true);
  });

  test("a sync that fails keeps its uses for the next one", async () => {
    clock.set("2026-11-25T11:00:05.000Z");
    let open = false;
    const c = createSharedKeyRateLimiter(
      { db: services.db, clock, isOpen: () => open, onSyncError: () => undefined },
      5,
      3_600_000,
    );
    afterAll(() => c.close());
    for (let i = 0; i < 5; i++) c.consume("key-3");
    await c.sync(); // the database is "closed": nothing written, nothing lost
    open = true;
    await c.sync();
    const d = limiter(other.db);
    d.consume("key-3"); // unknown here until d syncs
    await d.sync();
    expect(d.consume("key-3").allowed).toBe(false);
  });

  test("uses on their way to the database still count while the sync runs (no second chance in that gap)", async () => {
    clock.set("2026-11-25T12:00:05.000Z");
    let letWriteRun = () => {};
    const writeMayRun = new Promise<void>((resolve) => {
      letWriteRun = resolve;
    });
    const slowDb = {
      ...services.db,
      write: async (work: Parameters<typeof services.db.write>[0]) => {
        await writeMayRun;
        return services.db.write(work);
      },
    } as typeof services.db;
    const e = limiter(slowDb);
    const remaining = [e.consume("key-4").remaining, e.consume("key-4").remaining];
    const syncing = e.sync();
    // The two uses are in flight now: the next ones still see them.
    remaining.push(e.consume("key-4").remaining);
    letWriteRun();
    await syncing;
    remaining.push(e.consume("key-4").remaining, e.consume("key-4").remaining);
    expect(remaining).toEqual([4, 3, 2, 1, 0]);
    expect(e.consume("key-4").allowed).toBe(false);
  });
});
