// The /v1 answers and key checks are remembered only while the database is unchanged: a write
// by this server's own connection or by another process (the CLI) shows on the very next request.
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { createDataGeneration, createGenerationCache } from "../../src/db/data-generation.ts";
import { openDatabase } from "../../src/db/open.ts";
import { apiKeys, serviceAccounts } from "../../src/db/schema.ts";
import { startApiHarness } from "../support/api.ts";
import { insertTransactions } from "../support/bank-fixtures.ts";
import { holdsShmLock } from "../support/sqlite-locks.ts";
import { makeTempDir } from "../support/temp.ts";

const api = await startApiHarness();
afterAll(() => api.stop());

/** A second connection to the same file, as `svc` run from a shell would open. */
function otherProcessConnection() {
  return openDatabase(api.services.database.path);
}

async function transactionIds(accountId: string, key: string): Promise<string[]> {
  const response = await api.get(
    `/v1/accounts/${accountId}/transactions?include_pending=true`,
    key,
  );
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: { transaction_id: string }[] }).data.map(
    (t) => t.transaction_id,
  );
}

describe("data generation", () => {
  test("moves after a commit on this connection and after one on another connection, and only then", () => {
    const generation = createDataGeneration(api.services.database);
    const start = generation.current();
    expect(generation.current()).toBe(start);
    // Reads and writes that change nothing leave it alone.
    api.services.database.sqlite.query("SELECT COUNT(*) FROM api_keys").get();
    api.services.database.sqlite.exec("UPDATE instance_meta SET value = value WHERE key = 'none'");
    expect(generation.current()).toBe(start);
    const probe = crypto.randomUUID();
    api.services.database.sqlite.exec(
      `INSERT INTO instance_meta (key, value) VALUES ('own-${probe}', 'x')`,
    );
    const afterOwn = generation.current();
    expect(afterOwn).not.toBe(start);
    expect(generation.current()).toBe(afterOwn);
    const other = otherProcessConnection();
    other.sqlite.exec(`INSERT INTO instance_meta (key, value) VALUES ('other-${probe}', 'x')`);
    other.close();
    const afterOther = generation.current();
    expect(afterOther).not.toBe(afterOwn);
    // A checkpoint that restarts the WAL changes nothing, but may only ever move it forwards.
    api.services.database.sqlite.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    expect(generation.current()).toBeGreaterThanOrEqual(afterOther);
  });

  test("an in-memory database is watched the same way", () => {
    const memory = openDatabase(":memory:");
    try {
      const generation = createDataGeneration(memory);
      memory.sqlite.exec("CREATE TABLE t (x)");
      const start = generation.current();
      memory.sqlite.exec("INSERT INTO t VALUES (1)");
      expect(generation.current()).not.toBe(start);
    } finally {
      memory.close();
    }
  });

  test("watching the database keeps SQLite's own locks: the shared lock on the -shm file stays held", () => {
    const database = openDatabase(join(makeTempDir("svc-locks"), "svc.db"));
    try {
      database.sqlite.exec("CREATE TABLE t (x)");
      expect(holdsShmLock(process.pid, database.path)).toBe(true);
      const generation = createDataGeneration(database);
      for (let i = 0; i < 3; i++) {
        database.sqlite.exec("INSERT INTO t VALUES (1)");
        generation.current();
      }
      expect(holdsShmLock(process.pid, database.path)).toBe(true);
    } finally {
      database.close();
    }
  });

  test("a cache entry is served only at the generation it was stored at", () => {
    const cache = createGenerationCache<string>({ maxEntries: 2 });
    cache.set("a", 1, "A");
    expect(cache.get("a", 1)).toBe("A");
    expect(cache.get("a", 2)).toBeUndefined();
    cache.set("b", 1, "B");
    cache.set("c", 1, "C");
    expect(cache.get("a", 1)).toBeUndefined();
    expect(cache.get("c", 1)).toBe("C");
  });

  test("a cache bounded by size drops the oldest entries to make room, and never keeps one larger than the bound", () => {
    const cache = createGenerationCache<string>({
      maxEntries: 100,
      maxSize: 10,
      sizeOf: (value) => value.length,
    });
    cache.set("a", 1, "aaaa");
    cache.set("b", 1, "bbbb");
    cache.set("c", 1, "cccc");
    expect(cache.get("a", 1)).toBeUndefined();
    expect(cache.get("b", 1)).toBe("bbbb");
    expect(cache.get("c", 1)).toBe("cccc");
    // Replacing an entry frees its old size first.
    cache.set("c", 1, "cccccc");
    expect(cache.get("b", 1)).toBe("bbbb");
    cache.set("huge", 1, "x".repeat(11));
    expect(cache.get("huge", 1)).toBeUndefined();
    expect(cache.get("b", 1)).toBe("bbbb");
    // A new generation starts empty, with the whole bound free.
    cache.set("d", 2, "dddddddddd");
    expect(cache.get("d", 2)).toBe("dddddddddd");
  });
});

describe("/v1 never serves a remembered answer after the data changed", () => {
  test("transactions written by another process appear on the next request", async () => {
    const tenant = await api.addTenant(`fresh-${crypto.randomUUID()}@example.com`);
    const accountId = tenant.bank.accountIds[0] as string;
    const before = await transactionIds(accountId, tenant.key);
    expect(await transactionIds(accountId, tenant.key)).toEqual(before);
    const other = otherProcessConnection();
    const [added] = insertTransactions(other.db, api.clock, accountId, [
      { bookingDate: "2026-01-15" },
    ]);
    other.close();
    expect(await transactionIds(accountId, tenant.key)).toContain(added as string);
  });

  test("transactions written by this server's own connection appear on the next request", async () => {
    const tenant = await api.addTenant(`fresh-own-${crypto.randomUUID()}@example.com`);
    const accountId = tenant.bank.accountIds[0] as string;
    await transactionIds(accountId, tenant.key);
    const [added] = insertTransactions(api.services.db, api.clock, accountId, [
      { bookingDate: "2026-01-15" },
    ]);
    expect(await transactionIds(accountId, tenant.key)).toContain(added as string);
  });

  test("commit after commit, by either connection and across WAL checkpoints that reset the log, each shows on the next request", async () => {
    const tenant = await api.addTenant(`fresh-many-${crypto.randomUUID()}@example.com`);
    const accountId = tenant.bank.accountIds[0] as string;
    const other = otherProcessConnection();
    try {
      for (let round = 0; round < 30; round++) {
        // Twice, so the second request of each round is a remembered answer.
        await transactionIds(accountId, tenant.key);
        await transactionIds(accountId, tenant.key);
        const writer = round % 2 === 0 ? other.db : api.services.db;
        // On most rounds the other connection checkpoints first: the WAL restarts, so the commit
        // ends with the same frame count as the last one.
        if (round % 5 !== 4) other.sqlite.exec("PRAGMA wal_checkpoint(TRUNCATE)");
        const [added] = insertTransactions(writer, api.clock, accountId, [
          { bookingDate: "2026-01-15" },
        ]);
        expect(await transactionIds(accountId, tenant.key)).toContain(added as string);
      }
    } finally {
      other.close();
    }
  });

  test("a key revoked by another process is refused on the next request", async () => {
    const tenant = await api.addTenant(`revoke-${crypto.randomUUID()}@example.com`);
    expect((await api.get("/v1/accounts", tenant.key)).status).toBe(200);
    expect((await api.get("/v1/accounts", tenant.key)).status).toBe(200);
    const other = otherProcessConnection();
    other.db
      .update(apiKeys)
      .set({ revokedAt: api.clock.now() })
      .where(eq(apiKeys.id, tenant.keyId))
      .run();
    other.close();
    const refused = await api.get("/v1/accounts", tenant.key);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe(
      "invalid_api_key",
    );
  });

  test("an account lapsed by another process answers subscription_lapsed on the next request", async () => {
    const tenant = await api.addTenant(`lapse-${crypto.randomUUID()}@example.com`);
    expect((await api.get("/v1/accounts", tenant.key)).status).toBe(200);
    const other = otherProcessConnection();
    other.db
      .update(serviceAccounts)
      .set({ status: "lapsed", subscriptionStatus: "canceled" })
      .where(eq(serviceAccounts.id, tenant.accountId))
      .run();
    other.close();
    const refused = await api.get("/v1/accounts", tenant.key);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe(
      "subscription_lapsed",
    );
  });
});
