// GET /v1/accounts/{account_id}/transactions/changes on the engine of this run: what a page
// says about additions, bookings, edits and removals; exactness (replaying every page from no
// cursor gives what GET …/transactions?include_pending=true serves over all dates) with writes
// interleaved while the client pages, and on PostgreSQL with writers committing out of order;
// cursors of another account, past retention, or damaged.
import { afterAll, describe, expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import { encodeCursor } from "../../src/api/shared/cursor.ts";
import { changesAfterQuery } from "../../src/api/transaction-changes/read.ts";
import { connectSandbox } from "../../src/banking/sandbox/connect.ts";
import { syncConnection } from "../../src/banking/sync.ts";
import { pruneHistory } from "../../src/jobs/retention.ts";
import { errorOf, startApiHarness } from "../support/api.ts";
import { generatedTransactions, insertTransactions } from "../support/bank-fixtures.ts";
import { drainFeed, FeedCopy, type FeedPage, transactionWriter } from "../support/change-feed.ts";
import { testEngine } from "../support/engine.ts";
import { waitUntil } from "../support/wait.ts";

const api = await startApiHarness();
afterAll(() => api.stop());

async function newAccount(label: string) {
  const tenant = await api.addTenant(`${label}-${crypto.randomUUID()}@example.com`);
  const accountId = tenant.bank.accountIds[0] as string;
  const read = async (cursor?: string, limit = 100): Promise<FeedPage> => {
    const query = new URLSearchParams({ limit: String(limit), ...(cursor ? { cursor } : {}) });
    const response = await api.get(
      `/v1/accounts/${accountId}/transactions/changes?${query}`,
      tenant.key,
    );
    if (response.status !== 200) throw new Error(`${response.status} ${await response.text()}`);
    return (await response.json()) as FeedPage;
  };
  /** Everything the list serves with include_pending=true, over all dates (id -> row). */
  const served = async () => {
    const rows = new Map<string, unknown>();
    let cursor: string | null = null;
    do {
      const query: string = cursor
        ? `cursor=${cursor}`
        : "include_pending=true&from=2024-03-01&to=2026-01-31&limit=500";
      const response = await api.get(`/v1/accounts/${accountId}/transactions?${query}`, tenant.key);
      const body = (await response.json()) as {
        data: { transaction_id: string }[];
        next_cursor: string | null;
      };
      for (const row of body.data) rows.set(row.transaction_id, row);
      cursor = body.next_cursor;
    } while (cursor);
    return rows;
  };
  return { tenant, accountId, read, served };
}

const idsOf = (rows: { transaction_id: string }[]) => rows.map((r) => r.transaction_id).sort();

describe("transactions change feed", () => {
  test("without a cursor every current transaction (pending included) comes as added, paged; then has_more false and an empty page", async () => {
    const account = await newAccount("snapshot");
    const ids = await insertTransactions(api.services.db, api.clock, account.accountId, [
      { bookingDate: "2026-01-10" },
      { bookingDate: "2026-01-11", status: "pending" },
      { bookingDate: "2025-03-01" },
    ]);
    const copy = new FeedCopy();
    const first = await account.read(undefined, 2);
    expect(first).toMatchObject({ has_more: true, modified: [], removed: [] });
    expect(first.added).toHaveLength(2);
    copy.apply(first);
    await drainFeed((cursor) => account.read(cursor, 2), copy);
    expect([...copy.rows.keys()].sort()).toEqual([...ids].sort());
    const quiet = await account.read(copy.cursor);
    expect(quiet).toMatchObject({ added: [], modified: [], removed: [], has_more: false });
    expect(quiet.next_cursor).toBeString();
  });

  test("a booking is removed (pending id) plus added (booked row with pending_transaction_id); a vanished pending row is removed; an edit is modified, in its latest state", async () => {
    const account = await newAccount("kinds");
    const [pending, vanishing, edited] = await insertTransactions(
      api.services.db,
      api.clock,
      account.accountId,
      [
        { bookingDate: "2026-01-10", status: "pending" },
        { bookingDate: "2026-01-10", status: "pending" },
        { bookingDate: "2026-01-09", amount: "-1.00" },
      ],
    );
    const copy = new FeedCopy();
    await drainFeed((cursor) => account.read(cursor), copy);
    api.clock.advance(1_000);
    const now = api.clock.now();
    const { transactions: t } = api.services.db.t;
    const [booked] = await insertTransactions(api.services.db, api.clock, account.accountId, [
      { bookingDate: "2026-01-12", amount: "-9.99" },
    ]);
    await api.services.db.write(async (tx) => {
      await tx
        .update(t)
        .set({ pendingTransactionId: pending as string })
        .where(eq(t.id, booked as string));
      await tx
        .update(t)
        .set({ bookedTransactionId: booked as string, updatedAt: now })
        .where(eq(t.id, pending as string));
      await tx
        .update(t)
        .set({ removedAt: now, updatedAt: now })
        .where(eq(t.id, vanishing as string));
      await tx
        .update(t)
        .set({ amount: "-2.00", updatedAt: now })
        .where(eq(t.id, edited as string));
      await tx
        .update(t)
        .set({ description: "EDITED TWICE" })
        .where(eq(t.id, edited as string));
    });
    const page = await account.read(copy.cursor);
    expect(idsOf(page.added)).toEqual([booked as string]);
    expect(page.added[0]).toMatchObject({ pending_transaction_id: pending, amount: "-9.99" });
    expect(idsOf(page.removed)).toEqual([pending as string, vanishing as string].sort());
    expect(page.modified).toEqual([
      expect.objectContaining({
        transaction_id: edited,
        amount: "-2.00",
        description: "EDITED TWICE",
      }),
    ]);
    expect(page.has_more).toBe(false);
  });

  test("exact: replaying every page from no cursor, with syncs, bookings, edits and removals between pages, ends with exactly what the list serves", async () => {
    const account = await newAccount("exact");
    const writer = transactionWriter(api.services.db, api.clock, account.accountId, 7);
    await writer.run(40);
    const copy = new FeedCopy();
    let rounds = 0;
    // Small pages, and writes after each page: changes land while the client is mid-way.
    await drainFeed(
      (cursor) => account.read(cursor, 5),
      copy,
      async () => {
        if (rounds++ < 60) await writer.run(3);
      },
    );
    await writer.run(30);
    await drainFeed((cursor) => account.read(cursor, 7), copy);
    const expected = await account.served();
    expect(expected.size).toBeGreaterThan(20);
    expect([...copy.rows.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [id, row] of expected) expect(copy.rows.get(id)).toEqual(row);
  });

  test.skipIf(testEngine !== "postgres")(
    "exact with concurrent writers on PostgreSQL: a change that commits after a later-numbered one is never skipped",
    async () => {
      const account = await newAccount("concurrent");
      const { db } = api.services;
      const copy = new FeedCopy();
      await drainFeed((cursor) => account.read(cursor), copy);
      // Writer A writes, pauses, writes again and commits; writer B writes in between (it
      // waits for A where the account's rows are locked) and commits after the client has read
      // A's changes. B's change must still come, though B began writing while A was open.
      const gate = () => {
        let open: () => void = () => {};
        const opened = new Promise<void>((resolve) => {
          open = resolve;
        });
        return { open, opened };
      };
      const aWrote = gate();
      const aMayFinish = gate();
      const bWrote = gate();
      const bMayCommit = gate();
      const [a1, a2, b1] = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
      const writerA = db.write(async (tx) => {
        await insertRow(tx, account.accountId, a1);
        aWrote.open();
        await aMayFinish.opened;
        await insertRow(tx, account.accountId, a2);
      });
      await aWrote.opened;
      // Read committed: under serializable, B would fail on A's update of the account's data
      // generation and be retried with new numbers; the feed must not rely on that.
      const writerB = db.write(
        async (tx) => {
          await insertRow(tx, account.accountId, b1);
          bWrote.open();
          await bMayCommit.opened;
        },
        { isolation: "read committed" },
      );
      // B's statement has started and waits for a lock A holds, before A writes again.
      await waitUntil(async () => {
        const [row] = await db.rows<{ waiting: number | string }>(
          sql`SELECT count(*) AS waiting FROM pg_locks WHERE NOT granted AND (database IS NULL OR database = (SELECT oid FROM pg_database WHERE datname = current_database()))`,
        );
        return Number(row?.waiting ?? 0) > 0;
      }, "writer B to wait for writer A");
      aMayFinish.open();
      await writerA;
      await bWrote.opened;
      await drainFeed((cursor) => account.read(cursor), copy);
      expect(copy.rows.has(a2)).toBe(true);
      bMayCommit.open();
      await writerB;
      await drainFeed((cursor) => account.read(cursor), copy);
      expect(copy.rows.has(b1)).toBe(true);

      // And many writers at once while the client pages.
      const writers = [11, 12, 13].map((seed) =>
        transactionWriter(db, api.clock, account.accountId, seed),
      );
      let pages = 0;
      await drainFeed(
        (cursor) => account.read(cursor, 4),
        copy,
        async () => {
          if (pages++ < 25) await Promise.all(writers.map((w) => w.run(2)));
        },
      );
      await drainFeed((cursor) => account.read(cursor, 4), copy);
      const expected = await account.served();
      expect([...copy.rows.keys()].sort()).toEqual([...expected.keys()].sort());
      for (const [id, row] of expected) expect(copy.rows.get(id)).toEqual(row);
    },
  );

  test("the sandbox bank's syncs (new, pending, booking rows through the real sync path) reach the feed: replay equals the list for every account", async () => {
    const tenant = await api.addTenant(`sandbox-${crypto.randomUUID()}@example.com`);
    const connection = await connectSandbox(api.services, {
      serviceAccountId: tenant.accountId,
      seed: 3,
    });
    const accounts = connection.accounts.map((a) => a.id);
    const reader = (accountId: string) => async (cursor?: string) => {
      const query = new URLSearchParams({ limit: "50", ...(cursor ? { cursor } : {}) });
      const response = await api.get(
        `/v1/accounts/${accountId}/transactions/changes?${query}`,
        tenant.key,
      );
      return (await response.json()) as FeedPage;
    };
    const copies = new Map(accounts.map((id) => [id, new FeedCopy()]));
    for (const id of accounts) await drainFeed(reader(id), copies.get(id) as FeedCopy);
    for (let day = 0; day < 6; day++) {
      api.clock.advance(86_400_000);
      await syncConnection(api.services, connection.id, { trigger: "cli", force: true });
      // Read one account mid-way through the syncs, the others only at the end.
      await drainFeed(reader(accounts[0] as string), copies.get(accounts[0] as string) as FeedCopy);
    }
    for (const id of accounts) {
      const copy = copies.get(id) as FeedCopy;
      await drainFeed(reader(id), copy);
      const listed = new Map<string, unknown>();
      let cursor: string | null = null;
      do {
        const query: string = cursor
          ? `cursor=${cursor}`
          : "include_pending=true&from=2024-02-01&to=2026-01-30&limit=500";
        const body = (await (
          await api.get(`/v1/accounts/${id}/transactions?${query}`, tenant.key)
        ).json()) as { data: { transaction_id: string }[]; next_cursor: string | null };
        for (const row of body.data) listed.set(row.transaction_id, row);
        cursor = body.next_cursor;
      } while (cursor);
      expect(listed.size).toBeGreaterThan(0);
      expect([...copy.rows.entries()].sort()).toEqual([...listed.entries()].sort());
    }
    api.clock.advance(-6 * 86_400_000);
  });

  test("another account's cursor is 400 invalid_request; a damaged one too; one older than retention is 400 cursor_expired", async () => {
    const mine = await newAccount("mine");
    const other = await newAccount("other");
    const theirs = (await other.read()).next_cursor;
    const foreign = await api.get(
      `/v1/accounts/${mine.accountId}/transactions/changes?cursor=${theirs}`,
      mine.tenant.key,
    );
    expect(foreign.status).toBe(400);
    expect((await errorOf(foreign)).code).toBe("invalid_request");
    const damaged = await api.get(
      `/v1/accounts/${mine.accountId}/transactions/changes?cursor=${encodeCursor({ v: 1, k: "changes" })}`,
      mine.tenant.key,
    );
    expect([damaged.status, (await errorOf(damaged)).code]).toEqual([400, "invalid_request"]);
    const cursor = (await mine.read()).next_cursor;
    api.clock.advance(api.services.config.retentionDays * 86_400_000 + 1);
    try {
      const expired = await api.get(
        `/v1/accounts/${mine.accountId}/transactions/changes?cursor=${cursor}`,
        mine.tenant.key,
      );
      expect(expired.status).toBe(400);
      const error = await errorOf(expired);
      expect(error.code).toBe("cursor_expired");
      expect(error.message).toContain("without a cursor");
    } finally {
      api.clock.advance(-(api.services.config.retentionDays * 86_400_000 + 1));
    }
  });

  test("retention prunes changes older than the retention period plus a day; a cursor still valid finds every change after it", async () => {
    const account = await newAccount("prune");
    const { db } = api.services;
    await insertTransactions(db, api.clock, account.accountId, [{ bookingDate: "2026-01-02" }]);
    const copy = new FeedCopy();
    await drainFeed((cursor) => account.read(cursor), copy);
    const { transactionChanges: c } = db.t;
    const count = async () =>
      (await db.select({ seq: c.seq }).from(c).where(eq(c.accountId, account.accountId))).length;
    expect(await count()).toBe(1);
    const days = api.services.config.retentionDays;
    api.clock.advance(days * 86_400_000);
    try {
      await pruneHistory(db, api.clock, days);
      expect(await count()).toBe(1); // within the margin
      await drainFeed((cursor) => account.read(cursor), copy); // the client reads: a new cursor
      const [later] = await insertTransactions(db, api.clock, account.accountId, [
        { bookingDate: "2026-01-03" },
      ]);
      api.clock.advance(86_400_000 + 1);
      await pruneHistory(db, api.clock, days);
      expect(await count()).toBe(1);
      await drainFeed((cursor) => account.read(cursor), copy);
      expect(copy.rows.has(later as string)).toBe(true);
    } finally {
      api.clock.advance(-(days * 86_400_000 + 86_400_000 + 1));
    }
  });

  test("a change's current row is found by its id, not by a scan of the account's rows, also when the account's rows are newer than the planner's statistics (as after a large sync)", async () => {
    const { db } = api.services;
    const account = await newAccount("plan");
    const other = await newAccount("plan-other");
    await insertTransactions(
      db,
      api.clock,
      other.accountId,
      generatedTransactions(5_000, { lastDate: "2026-01-20", perDay: 50 }),
    );
    await db.write((tx) => tx.rows(sql.raw("ANALYZE")));
    await insertTransactions(
      db,
      api.clock,
      account.accountId,
      generatedTransactions(2_000, { lastDate: "2026-01-20", perDay: 50 }),
    );
    // The page query with its values written in (an account id and two numbers).
    const values: Record<string, string> = {
      account: `'${account.accountId}'`,
      position: "0",
      limit: "100",
    };
    const { sql: text, params } = changesAfterQuery(db).toSQL();
    let index = 0;
    const literal = text.replace(/\$\d+|\?/g, () => {
      const param = params[index++] as { name?: string };
      return values[param.name ?? ""] ?? "NULL";
    });
    const explain = testEngine === "postgres" ? "EXPLAIN" : "EXPLAIN QUERY PLAN";
    const plan = (await db.rows<Record<string, unknown>>(sql.raw(`${explain} ${literal}`)))
      .map((row) => String(row["QUERY PLAN"] ?? row.detail))
      .join("\n");
    expect(plan).toContain("transactions_id_unique");
    expect(plan).not.toContain("Join Filter");
  });
});

async function insertRow(tx: import("../../src/db/store.ts").Db, accountId: string, id: string) {
  const now = api.clock.now();
  await tx.insert(tx.t.transactions).values({
    id,
    accountId,
    externalId: id,
    status: "booked",
    amount: "-5.00",
    currency: "EUR",
    bookingDate: "2026-01-04",
    valueDate: null,
    description: "SLOW WRITER",
    counterpartyName: null,
    merchantName: null,
    createdAt: now,
    updatedAt: now,
  });
}
