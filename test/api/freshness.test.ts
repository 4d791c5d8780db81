// /v1 answers are remembered per account and data generation, and key checks read the key and
// its account on every request (on SQLite: again whenever the database's change counter moved):
// a write by this server or by another process (the CLI, another instance) shows on the very
// next request. Runs on both engines.
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { createBoundedCache } from "../../src/core/bounded-map.ts";
import { openDatabase } from "../../src/db/open.ts";
import { openSqliteDatabase } from "../../src/db/sqlite-store.ts";
import type { Db } from "../../src/db/store.ts";
import { first } from "../../src/db/store.ts";
import { createKeyAuthenticator, type KeyCheck } from "../../src/keys/authenticate.ts";
import { startApiHarness } from "../support/api.ts";
import { insertTransactions } from "../support/bank-fixtures.ts";
import { testEngine } from "../support/engine.ts";
import { holdsShmLock } from "../support/sqlite-locks.ts";
import { makeTempDir } from "../support/temp.ts";

const api = await startApiHarness();
afterAll(() => api.stop());

/** A second store on the same data, as `svc` run from a shell (or another instance) opens. */
function otherProcessConnection() {
  return openDatabase(api.services.config);
}

async function generationOf(db: Db, accountId: string): Promise<number> {
  const { serviceAccounts } = db.t;
  const row = await first(
    db
      .select({ generation: serviceAccounts.dataGeneration })
      .from(serviceAccounts)
      .where(eq(serviceAccounts.id, accountId)),
  );
  return row?.generation ?? Number.NaN;
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

describe("an account's data generation", () => {
  test("moves in the same transaction as every change of its connections, accounts, balances and transactions, and only its own", async () => {
    const { db, clock } = api.services;
    const tenant = await api.addTenant(`generation-${crypto.randomUUID()}@example.com`);
    const bystander = await api.addTenant(`bystander-${crypto.randomUUID()}@example.com`);
    const accountId = tenant.bank.accountIds[0] as string;
    const { connections, bankAccounts, balances, transactions } = db.t;
    const bystanderBefore = await generationOf(db, bystander.accountId);
    const changes: [string, () => Promise<unknown>][] = [
      [
        "a transaction inserted",
        () => insertTransactions(db, clock, accountId, [{ bookingDate: "2026-01-14" }]),
      ],
      [
        "a transaction updated",
        () =>
          db.write((tx) =>
            tx
              .update(transactions)
              .set({ amount: "-1.00" })
              .where(eq(transactions.accountId, accountId)),
          ),
      ],
      [
        "a balance updated",
        () =>
          db.write((tx) =>
            tx.update(balances).set({ current: "1.00" }).where(eq(balances.accountId, accountId)),
          ),
      ],
      [
        "an account renamed",
        () =>
          db.write((tx) =>
            tx.update(bankAccounts).set({ name: "Renamed" }).where(eq(bankAccounts.id, accountId)),
          ),
      ],
      [
        "a connection's status moved",
        () =>
          db.write((tx) =>
            tx
              .update(connections)
              .set({ status: "expired" })
              .where(eq(connections.id, tenant.bank.connectionId)),
          ),
      ],
      [
        "transactions deleted",
        () =>
          db.write((tx) => tx.delete(transactions).where(eq(transactions.accountId, accountId))),
      ],
      [
        "a connection removed",
        () =>
          db.write((tx) =>
            tx.delete(connections).where(eq(connections.id, tenant.bank.connectionId)),
          ),
      ],
    ];
    for (const [what, change] of changes) {
      const before = await generationOf(db, tenant.accountId);
      await change();
      expect(`${what}: ${await generationOf(db, tenant.accountId)}`).not.toBe(`${what}: ${before}`);
    }
    expect(await generationOf(db, bystander.accountId)).toBe(bystanderBefore);
  });

  test("does not move for writes the read API never shows (key use, deliveries)", async () => {
    const tenant = await api.addTenant(`quiet-${crypto.randomUUID()}@example.com`);
    const before = await generationOf(api.services.db, tenant.accountId);
    // A request writes last_used_at of the key (off the request's path).
    expect((await api.get("/v1/accounts", tenant.key)).status).toBe(200);
    await Bun.sleep(50);
    expect(await generationOf(api.services.db, tenant.accountId)).toBe(before);
  });
});

describe.if(testEngine === "sqlite")("SQLite's own locks", () => {
  test("the store keeps SQLite's shared lock on the -shm file while it reads and writes", async () => {
    const database = openSqliteDatabase(join(makeTempDir("svc-locks"), "svc.db"));
    try {
      database.writer.exec("CREATE TABLE t (x)");
      expect(holdsShmLock(process.pid, database.path)).toBe(true);
      for (let i = 0; i < 3; i++) {
        database.writer.exec("INSERT INTO t VALUES (1)");
        database.reader.query("SELECT count(*) FROM t").get();
      }
      expect(holdsShmLock(process.pid, database.path)).toBe(true);
    } finally {
      await database.close();
    }
  });
});

describe("the SQLite change counter (key rows are reused while it stands still)", () => {
  test.skipIf(testEngine !== "sqlite")(
    "moves at once with a commit of this process's writer, from the next turn of the event loop with one of another process, and only then",
    async () => {
      const counter = api.services.database.changeCounter as () => number;
      const before = counter();
      expect(counter()).toBe(before);
      const tenant = await api.addTenant(`counter-${crypto.randomUUID()}@example.com`);
      const afterOwnWrite = counter();
      expect(afterOwnWrite).not.toBe(before);
      const other = otherProcessConnection();
      if (other.engine !== "sqlite") throw new Error("a SQLite test");
      // The counter read, the other connection's commit and the next read, all in one turn of
      // the event loop (synchronous statements): the commit is seen from the next turn on.
      expect(counter()).toBe(afterOwnWrite);
      other.writer
        .query("UPDATE service_accounts SET name = 'renamed' WHERE id = ?")
        .run(tenant.accountId);
      // Read once per turn: every request served in this turn was received before the commit.
      expect(counter()).toBe(afterOwnWrite);
      await other.close();
      await new Promise((resolve) => setImmediate(resolve));
      const afterOtherWrite = counter();
      expect(afterOtherWrite).not.toBe(afterOwnWrite);
      await new Promise((resolve) => setImmediate(resolve));
      expect(counter()).toBe(afterOtherWrite);
    },
  );

  test("a key's row is read again only after the counter moved (a counter held still proves the reuse); a remembered key is answered without a promise", async () => {
    const tenant = await api.addTenant(`reuse-${crypto.randomUUID()}@example.com`);
    let version = 1;
    const authenticator = createKeyAuthenticator(api.services.db, api.clock, {
      changeCounter: () => version,
    });
    expect((await authenticator.check(tenant.key)).ok).toBe(true);
    const { apiKeys } = api.services.db.t;
    await api.services.db.write((tx) =>
      tx.update(apiKeys).set({ revokedAt: api.clock.now() }).where(eq(apiKeys.id, tenant.keyId)),
    );
    // The counter held still: the remembered row answers (what a real counter never allows),
    // synchronously, so the cached-answer lane serves it without a promise turn.
    const remembered = authenticator.check(tenant.key);
    expect(remembered).not.toBeInstanceOf(Promise);
    expect((remembered as KeyCheck).ok).toBe(true);
    version = 2;
    const moved = authenticator.check(tenant.key);
    expect(moved).toBeInstanceOf(Promise);
    expect(await moved).toMatchObject({ ok: false, reason: "revoked" });
    // A revoked key is remembered as revoked until the counter moves again.
    expect(authenticator.check(tenant.key)).toMatchObject({ ok: false, reason: "revoked" });
  });
});

describe("the bounded cache of remembered answers", () => {
  test("keeps at most maxEntries, dropping the oldest", () => {
    const cache = createBoundedCache<string>({ maxEntries: 2 });
    cache.set("a", "A");
    expect(cache.get("a")).toBe("A");
    cache.set("b", "B");
    cache.set("c", "C");
    expect(cache.get("a")).toBeUndefined();
    expect(cache.get("c")).toBe("C");
  });

  test("bounded by size, it drops the oldest entries to make room, and never keeps one larger than the bound", () => {
    const cache = createBoundedCache<string>({
      maxEntries: 100,
      maxSize: 10,
      sizeOf: (value) => value.length,
    });
    cache.set("a", "aaaa");
    cache.set("b", "bbbb");
    cache.set("c", "cccc");
    expect(cache.get("a")).toBeUndefined();
    expect(cache.get("b")).toBe("bbbb");
    expect(cache.get("c")).toBe("cccc");
    // Replacing an entry frees its old size first.
    cache.set("c", "cccccc");
    expect(cache.get("b")).toBe("bbbb");
    cache.set("huge", "x".repeat(11));
    expect(cache.get("huge")).toBeUndefined();
    expect(cache.get("b")).toBe("bbbb");
  });
});

describe("/v1 never serves a remembered answer after the data changed", () => {
  test("transactions written by another process appear on the next request", async () => {
    const tenant = await api.addTenant(`fresh-${crypto.randomUUID()}@example.com`);
    const accountId = tenant.bank.accountIds[0] as string;
    const before = await transactionIds(accountId, tenant.key);
    expect(await transactionIds(accountId, tenant.key)).toEqual(before);
    const other = otherProcessConnection();
    const [added] = await insertTransactions(other.db, api.clock, accountId, [
      { bookingDate: "2026-01-15" },
    ]);
    await other.close();
    expect(await transactionIds(accountId, tenant.key)).toContain(added as string);
  });

  test("transactions written by this server appear on the next request", async () => {
    const tenant = await api.addTenant(`fresh-own-${crypto.randomUUID()}@example.com`);
    const accountId = tenant.bank.accountIds[0] as string;
    await transactionIds(accountId, tenant.key);
    const [added] = await insertTransactions(api.services.db, api.clock, accountId, [
      { bookingDate: "2026-01-15" },
    ]);
    expect(await transactionIds(accountId, tenant.key)).toContain(added as string);
  });

  test("commit after commit, by either process, each shows on the next request (on SQLite also across WAL checkpoints that reset the log)", async () => {
    const tenant = await api.addTenant(`fresh-many-${crypto.randomUUID()}@example.com`);
    const accountId = tenant.bank.accountIds[0] as string;
    const other = otherProcessConnection();
    try {
      for (let round = 0; round < 30; round++) {
        // Twice, so the second request of each round is a remembered answer.
        await transactionIds(accountId, tenant.key);
        await transactionIds(accountId, tenant.key);
        const writer = round % 2 === 0 ? other.db : api.services.db;
        if (other.engine === "sqlite" && round % 5 !== 4) {
          other.writer.exec("PRAGMA wal_checkpoint(TRUNCATE)");
        }
        const [added] = await insertTransactions(writer, api.clock, accountId, [
          { bookingDate: "2026-01-15" },
        ]);
        expect(await transactionIds(accountId, tenant.key)).toContain(added as string);
      }
    } finally {
      await other.close();
    }
  });

  test("a key revoked by another process is refused on the next request", async () => {
    const tenant = await api.addTenant(`revoke-${crypto.randomUUID()}@example.com`);
    expect((await api.get("/v1/accounts", tenant.key)).status).toBe(200);
    expect((await api.get("/v1/accounts", tenant.key)).status).toBe(200);
    const other = otherProcessConnection();
    const { apiKeys } = other.db.t;
    await other.db.write((tx) =>
      tx.update(apiKeys).set({ revokedAt: api.clock.now() }).where(eq(apiKeys.id, tenant.keyId)),
    );
    await other.close();
    const refused = await api.get("/v1/accounts", tenant.key);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe(
      "invalid_api_key",
    );
  });

  test("with many requests under way while another process revokes the key, every request sent after the revocation committed is refused (on PostgreSQL their key reads are shared)", async () => {
    const tenant = await api.addTenant(`revoke-busy-${crypto.randomUUID()}@example.com`);
    let committedAt = Number.POSITIVE_INFINITY;
    const outcomes: { sentAt: number; status: number }[] = [];
    let flowing = () => {};
    const answered = new Promise<void>((resolve) => {
      flowing = resolve;
    });
    const client = async () => {
      // Each client stops after a few requests sent after the commit.
      let afterCommit = 0;
      while (afterCommit < 5) {
        const sentAt = performance.now();
        const response = await api.get("/v1/accounts", tenant.key);
        await response.arrayBuffer();
        outcomes.push({ sentAt, status: response.status });
        if (response.status === 200) flowing();
        if (sentAt > committedAt) afterCommit++;
      }
    };
    const clients = Array.from({ length: 16 }, client);
    // Revoke once requests are flowing, from another connection (as the CLI or an instance).
    await answered;
    const other = otherProcessConnection();
    const { apiKeys } = other.db.t;
    await other.db.write((tx) =>
      tx.update(apiKeys).set({ revokedAt: api.clock.now() }).where(eq(apiKeys.id, tenant.keyId)),
    );
    committedAt = performance.now();
    await Promise.all(clients);
    await other.close();
    const after = outcomes.filter((o) => o.sentAt > committedAt);
    expect(after.length).toBeGreaterThanOrEqual(16 * 5);
    expect(after.every((o) => o.status === 401)).toBe(true);
    expect(outcomes.filter((o) => o.sentAt < committedAt).some((o) => o.status === 200)).toBe(true);
  });

  test("an account lapsed by another process answers subscription_lapsed on the next request", async () => {
    const tenant = await api.addTenant(`lapse-${crypto.randomUUID()}@example.com`);
    expect((await api.get("/v1/accounts", tenant.key)).status).toBe(200);
    const other = otherProcessConnection();
    const { serviceAccounts } = other.db.t;
    await other.db.write((tx) =>
      tx
        .update(serviceAccounts)
        .set({ status: "lapsed", subscriptionStatus: "canceled" })
        .where(eq(serviceAccounts.id, tenant.accountId)),
    );
    await other.close();
    const refused = await api.get("/v1/accounts", tenant.key);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe(
      "subscription_lapsed",
    );
  });
});
