import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { eq, sql } from "drizzle-orm";
import { openDatabase } from "../../src/db/open.ts";
import { installedDir, runSvc } from "../support/cli.ts";
import { engineEnvFor } from "../support/engine.ts";
import { createFakeClock } from "../support/fake-clock.ts";
import { makeTempDir } from "../support/temp.ts";

interface ConnectionJson {
  id: string;
  status: string;
  seed: number;
  accounts: { id: string; type: string }[];
}

async function fixture() {
  const cwd = await installedDir(makeTempDir());
  const clock = createFakeClock("2026-01-15T09:00:00.000Z");
  const svc = (...argv: string[]) => runSvc(argv, { cwd, clock });
  const created = await svc("accounts", "create", "--email", "owner@example.com", "--json");
  expect(created.code).toBe(0);
  const accountId = created.json<{ id: string }>().id;
  const count = async (table: string) => {
    const env = await engineEnvFor(cwd);
    const database = openDatabase({
      dataDir: join(cwd, "data"),
      databaseUrl: env.SVC_DATABASE_URL,
    });
    try {
      const [row] = await database.db.rows<{ n: number | string }>(
        sql.raw(`SELECT count(*) AS n FROM ${table}`),
      );
      return Number(row?.n);
    } finally {
      await database.close();
    }
  };
  return { cwd, clock, svc, accountId, count };
}

describe("svc sandbox connect, svc sync, svc events list", () => {
  test("connecting and syncing shows data in the tables and the events as JSON", async () => {
    const f = await fixture();
    const connected = await f.svc(
      "sandbox",
      "connect",
      "--account",
      f.accountId,
      "--seed",
      "4",
      "--json",
    );
    expect(connected.code).toBe(0);
    const connection = connected.json<ConnectionJson>();
    expect(connection).toMatchObject({ status: "linked", seed: 4 });
    expect(connection.accounts.length).toBeGreaterThanOrEqual(2);

    const synced = await f.svc("sync", "--json");
    expect(synced.code).toBe(0);
    expect(synced.json()).toEqual([
      expect.objectContaining({
        connection_id: connection.id,
        outcome: "succeeded",
        status: "linked",
      }),
    ]);
    expect(await f.count("bank_accounts")).toBe(connection.accounts.length);
    expect(await f.count("balances")).toBe(connection.accounts.length);
    expect(await f.count("transactions")).toBeGreaterThan(100);

    const listed = await f.svc("events", "list", "--account", f.accountId, "--json");
    expect(listed.code).toBe(0);
    const events =
      listed.json<
        {
          id: string;
          type: string;
          created_at: string;
          envelope: { id: string; data: Record<string, unknown> };
        }[]
      >();
    const types = events.map((e) => e.type);
    expect(types.filter((t) => t === "connection.status.changed")).toHaveLength(3);
    expect(types.filter((t) => t === "account.transactions.available")).toHaveLength(
      connection.accounts.length,
    );
    expect(types.filter((t) => t === "account.balance.updated")).toHaveLength(
      connection.accounts.length,
    );
    for (const event of events) expect(event.envelope.id).toBe(event.id);

    const human = await f.svc(
      "events",
      "list",
      "--account",
      f.accountId,
      "--type",
      "connection.status.changed",
      "--limit",
      "1",
    );
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('"status":"linked"');
    expect(human.stdout.trim().split("\n")).toHaveLength(2);
  });

  test("svc sync --connection after 15 minutes brings new transactions; at once again, none", async () => {
    const f = await fixture();
    const connection = (
      await f.svc("sandbox", "connect", "--account", f.accountId, "--json")
    ).json<ConnectionJson>();
    await f.svc("sync", "--connection", connection.id);
    const again = await f.svc("sync", "--connection", connection.id, "--json");
    expect(again.json()).toMatchObject({
      outcome: "succeeded",
      new_transactions: 0,
      events_raised: 0,
    });
    f.clock.advance(15 * 60_000);
    const later = await f.svc("sync", "--connection", connection.id);
    expect(later.code).toBe(0);
    expect(later.stdout).toMatch(/succeeded\s+linked\s+[1-9]\d* new transactions/);
  });

  test("svc sandbox set-status moves through the vocabulary; error makes svc sync fail with exit 1", async () => {
    const f = await fixture();
    const connection = (
      await f.svc("sandbox", "connect", "--account", f.accountId, "--json")
    ).json<ConnectionJson>();
    const moved = await f.svc(
      "sandbox",
      "set-status",
      "--connection",
      connection.id,
      "expired",
      "--json",
    );
    expect(moved.code).toBe(0);
    expect(moved.json()).toMatchObject({ changed: true, connection: { status: "expired" } });
    const same = await f.svc("sandbox", "set-status", "--connection", connection.id, "expired");
    expect(same.stdout).toContain("no event raised");
    const error = await f.svc(
      "sandbox",
      "set-status",
      "--connection",
      connection.id,
      "error",
      "--message",
      "bank down",
    );
    expect(error.code).toBe(0);
    const failed = await f.svc("sync", "--connection", connection.id);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain("failed");
    expect(failed.stderr).toContain("did not complete");

    const bad = await f.svc("sandbox", "set-status", "--connection", connection.id, "connected");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("status must be one of linked, awaiting_auth");
    const misplaced = await f.svc(
      "sandbox",
      "set-status",
      "--connection",
      connection.id,
      "linked",
      "--message",
      "x",
    );
    expect(misplaced.code).toBe(2);
  });

  test("usage mistakes are clear: a bad seed, an unknown account, a bad limit", async () => {
    const f = await fixture();
    const seed = await f.svc("sandbox", "connect", "--account", f.accountId, "--seed", "-3");
    expect(seed.code).toBe(2);
    const unknown = await f.svc(
      "sandbox",
      "connect",
      "--account",
      "6f1c0000-0000-4000-8000-000000000000",
    );
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("No service account");
    const limit = await f.svc("events", "list", "--account", f.accountId, "--limit", "0");
    expect(limit.code).toBe(2);
    const missing = await f.svc("sync", "--connection", "6f1c0000-0000-4000-8000-000000000000");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("No connection");
  });
});

describe("svc import", () => {
  test("imports a file once, then changes nothing; a bad file is refused naming every bad record", async () => {
    const f = await fixture();
    const valid = join(import.meta.dir, "../fixtures/import/valid.json");
    const invalid = join(import.meta.dir, "../fixtures/import/invalid.json");
    const first = await f.svc("import", "--account", f.accountId, valid, "--json");
    expect(first.code).toBe(0);
    expect(first.json()).toMatchObject({ new_transactions: 4, events_raised: 6 });
    const second = await f.svc("import", "--account", f.accountId, valid);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain("0 new transactions, 0 events raised");

    const rejected = await f.svc("import", "--account", f.accountId, invalid);
    expect(rejected.code).toBe(1);
    expect(rejected.stderr).toContain("nothing was written: 6 problems");
    expect(rejected.stderr).toContain('transactions[1].amount (id "bad-amount")');
    expect(await f.count("transactions")).toBe(4);

    const missing = await f.svc("import", "--account", f.accountId, "nope.json");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("nope.json: cannot be read");
  });

  test("svc connections list shows each connection's notice; --json carries it as notice", async () => {
    const f = await fixture();
    const connection = (
      await f.svc("sandbox", "connect", "--account", f.accountId, "--json")
    ).json<ConnectionJson>();
    const text = "1 account without an identifier was skipped";
    const env = await engineEnvFor(f.cwd);
    const database = openDatabase({
      dataDir: join(f.cwd, "data"),
      databaseUrl: env.SVC_DATABASE_URL,
    });
    try {
      await database.db.write((tx) =>
        tx
          .update(tx.t.connections)
          .set({ notice: text })
          .where(eq(tx.t.connections.id, connection.id)),
      );
    } finally {
      await database.close();
    }
    const human = await f.svc("connections", "list", "--account", f.accountId);
    expect(human.stdout).toContain("NOTICE");
    expect(human.stdout).toContain(text);
    const listed = await f.svc("connections", "list", "--account", f.accountId, "--json");
    expect(listed.json<{ id: string; notice: string | null }[]>()).toEqual([
      expect.objectContaining({ id: connection.id, notice: text }),
    ]);
  });
});
