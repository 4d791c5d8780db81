// Each corpus shape (test/fixtures/providers) through the sync path, read after read: the
// connection stays linked (only the provider's own auth answers move it), each real transaction
// keeps one transaction_id, a provider id that now names other content overwrites nothing, a
// booked row that replaces a pending one is linked to it, a dropped pending row is removed, and
// what the provider said or Svc skipped is the connection's notice.
import { describe, expect, test } from "bun:test";
import { createAccountReads } from "../../src/api/accounts/read.ts";
import { createTransactionReads } from "../../src/api/transactions/read.ts";
import { joinedBytes } from "../../src/core/joined-bytes.ts";
import {
  enableBankingShape,
  enableBankingShapes,
  simplefinShape,
  simplefinShapes,
} from "../support/provider-fixtures.ts";
import { storedEvents } from "./helpers.ts";
import { type Replay, replay } from "./replay.ts";

const contentOf = (rows: Awaited<ReturnType<Replay["transactions"]>>) =>
  rows.map((t) => [t.id, t.status, t.amount, t.description]);

const utf8 = new TextEncoder();
/** A page's rows as the JSON array the API serves them in. */
const pageText = (parts: readonly Uint8Array[]) =>
  new TextDecoder().decode(joinedBytes(utf8.encode("["), parts, utf8.encode("]")));

async function servedIds(r: Replay, includePending: boolean): Promise<string[]> {
  const accountReads = createAccountReads(r.services.db);
  const transactionReads = createTransactionReads(r.services.db, accountReads);
  const { data: accounts } = await accountReads.listAccounts(r.accountId, { limit: 100 });
  const ids: string[] = [];
  for (const account of accounts) {
    const page = await transactionReads.listTransactions(r.accountId, account.account_id, {
      window: { from: "2000-01-01", to: "2100-01-01" },
      includePending,
      limit: 500,
    });
    ids.push(
      ...(JSON.parse(pageText(page.json)) as { transaction_id: string }[]).map(
        (t) => t.transaction_id,
      ),
    );
  }
  return ids;
}

describe("a connection survives every documented shape with status linked", () => {
  for (const shape of [...enableBankingShapes, ...simplefinShapes]) {
    if (shape.shape === "errors-without-accounts") continue;
    test(`${shape.provider} ${shape.shape}`, async () => {
      const r = await replay(shape);
      for (let i = 0; i < shape.reads.length; i++) {
        const result = await r.next();
        expect(result).toMatchObject({ outcome: "succeeded", status: "linked" });
      }
      expect((await r.connection()).status).toBe("linked");
      // include_pending=true never lists a transaction twice.
      const served = await servedIds(r, true);
      expect(new Set(served).size).toBe(served.length);
    });
  }

  test("SimpleFIN errors with no account are the provider's answer: the connection leaves linked", async () => {
    const r = await replay(simplefinShape("errors-without-accounts"));
    const result = await r.next();
    expect(result.outcome).toBe("failed");
    expect((await r.connection()).status).not.toBe("linked");
  });
});

describe("one transaction_id per real transaction", () => {
  test('rows with entry_reference "0" are told apart by content and keep their ids across reads', async () => {
    const r = await replay(enableBankingShape("entry-reference-zero"));
    await r.next();
    const first = await r.transactions();
    expect(first).toHaveLength(4);
    const again = await r.next();
    expect(again).toMatchObject({ status: "linked", newTransactions: 0 });
    expect(contentOf(await r.transactions())).toEqual(contentOf(first));
  });

  test("two identical coffees stay two; a third identical one is one new transaction", async () => {
    const r = await replay(enableBankingShape("two-coffees"));
    expect(await r.next()).toMatchObject({ newTransactions: 2 });
    const ids = (await r.transactions()).map((t) => t.id);
    expect(await r.next()).toMatchObject({ newTransactions: 0 });
    expect(await r.next()).toMatchObject({ newTransactions: 1 });
    const after = (await r.transactions()).map((t) => t.id);
    expect(after).toHaveLength(3);
    expect(after.slice(0, 2)).toEqual(ids);
  });

  test("transaction_id churn: the rent keeps its id and content, nothing is duplicated or overwritten", async () => {
    const r = await replay(enableBankingShape("transaction-id-churn"));
    await r.next();
    const before = contentOf(await r.transactions());
    expect(await r.next()).toMatchObject({ newTransactions: 0 });
    expect(contentOf(await r.transactions())).toEqual(before);
  });

  test("entry_reference renumbering: the rent and Spotify keep id and content, the app-store charge is one new row", async () => {
    const r = await replay(enableBankingShape("entry-reference-renumbering"));
    await r.next();
    const before = contentOf(await r.transactions());
    expect(before.map((row) => row[2])).toEqual(["-1200.00", "-9.99"]);
    expect(await r.next()).toMatchObject({ newTransactions: 1 });
    const after = contentOf(await r.transactions());
    expect(after.slice(0, 2)).toEqual(before);
    expect(after[2]?.slice(1)).toEqual(["booked", "-4.99", "App Store"]);
    // Each row keeps every provider id it was seen under.
    const { transactionProviderIds } = r.services.db.t;
    const seen = await r.services.db.select().from(transactionProviderIds);
    const rent = before[0]?.[0];
    expect(
      seen
        .filter((s) => s.transactionId === rent)
        .map((s) => s.providerId)
        .sort(),
    ).toEqual(["20260112-0001", "20260112-0002"]);
  });

  test('SimpleFIN rows sharing the id "0" are told apart by content and not duplicated on re-read', async () => {
    const shape = simplefinShape("duplicate-ids");
    const r = await replay({ ...shape, reads: [shape.reads[0], shape.reads[0]] as never });
    expect(await r.next()).toMatchObject({ newTransactions: 3 });
    expect(await r.next()).toMatchObject({ newTransactions: 0 });
    expect(await r.transactions()).toHaveLength(3);
  });
});

describe("pending to booked, for real banks", () => {
  for (const shape of [
    enableBankingShape("pending-to-booked"),
    simplefinShape("pending-to-booked"),
  ]) {
    test(`${shape.provider}: the booked row is news, linked to the pending row it replaces, which is then not served`, async () => {
      const r = await replay(shape);
      expect(await r.next()).toMatchObject({ newTransactions: 1 });
      expect(await r.next()).toMatchObject({ newTransactions: 1 });
      const [pending, booked] = await r.transactions();
      expect(pending).toMatchObject({ status: "pending", bookedTransactionId: booked?.id });
      expect(booked).toMatchObject({ status: "booked", pendingTransactionId: pending?.id });
      expect(await servedIds(r, true)).toEqual([booked?.id as string]);
      const counts = (await storedEvents(r.services))
        .filter((e) => e.type === "account.transactions.available")
        .map((e) => e.data.new_count);
      expect(counts).toEqual([1, 1]);
    });
  }

  test("a pending row the bank no longer returns in a window it read again is removed (removed_at) and not served", async () => {
    const r = await replay(enableBankingShape("pending-dropped"));
    await r.next();
    expect(await servedIds(r, true)).toHaveLength(2);
    await r.next();
    const [hold, cafe] = await r.transactions();
    expect(hold?.removedAt).toEqual(r.clock.now());
    expect(cafe?.removedAt).toBeNull();
    expect(await servedIds(r, true)).toEqual([cafe?.id as string]);
  });
});

describe("notices", () => {
  test("SimpleFIN errors beside accounts are the notice, cut to scheme and host: no credentials or path", async () => {
    const r = await replay(simplefinShape("errors-with-accounts"));
    await r.next();
    const { notice, status } = await r.connection();
    expect(status).toBe("linked");
    expect(notice).toContain("may need attention");
    expect(notice).toContain("https://bridge.simplefin.org");
    expect(notice).not.toContain("pa55");
    expect(notice).not.toContain("/auth/login");
  });

  test("a version 2 errlist is the notice while its accounts are read", async () => {
    const r = await replay(simplefinShape("v2-errlist"));
    await r.next();
    expect((await r.connection()).notice).toBe(
      "Authentication required for My Bank - Jeff; Data for Other Bank may be delayed",
    );
    expect(await r.transactions()).toHaveLength(1);
  });

  test("what was skipped is the notice, and counted in svc_provider_rows_skipped_total", async () => {
    const r = await replay(enableBankingShape("account-without-uid"));
    await r.next();
    expect((await r.connection()).notice).toBe("1 account without an identifier was skipped");
    const r2 = await replay(enableBankingShape("unknown-enum-values"));
    await r2.next();
    expect((await r2.connection()).notice).toBe(
      "1 transaction without a credit or debit indicator was skipped; 1 transaction with a status Svc does not know was skipped; 4 cancelled, rejected, scheduled or informational entries were skipped",
    );
    const metrics = await r2.services.metrics.registry.metrics();
    expect(metrics).toContain(
      'svc_provider_rows_skipped_total{provider="enable_banking",reason="not_money_movement"} 4',
    );
  });

  test("a read without messages or skips clears the notice", async () => {
    const [withErrors] = simplefinShape("errors-with-accounts").reads;
    const r = await replay({
      provider: "simplefin",
      shape: "errors then none",
      reads: [withErrors as never, { ...withErrors, errors: [] }],
    });
    await r.next();
    expect((await r.connection()).notice).not.toBeNull();
    await r.next();
    expect((await r.connection()).notice).toBeNull();
  });
});
