import { describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { join } from "node:path";
import { MigrationError, migrateDatabase } from "../../src/db/migrate.ts";
import { readMigrationFolder } from "../../src/db/migration-files.ts";
import { openDatabase } from "../../src/db/open.ts";
import { makeTempDir } from "../support/temp.ts";

const expectedTables = [
  "service_accounts",
  "users",
  "sessions",
  "api_keys",
  "connections",
  "bank_accounts",
  "balances",
  "transactions",
  "sync_runs",
  "webhook_endpoints",
  "verification_codes",
  "events",
  "deliveries",
  "delivery_attempts",
  "rate_limit_counters",
  "mail_outbox",
  "instance_meta",
];

function tables(path: string): string[] {
  const database = openDatabase(path);
  const rows = database.sqlite
    .query("SELECT name FROM sqlite_master WHERE type = 'table'")
    .all() as { name: string }[];
  database.close();
  return rows.map((row) => row.name);
}

describe("migrations", () => {
  test("a fresh database is migrated to every table the spec needs", () => {
    const path = join(makeTempDir(), "svc.db");
    const database = openDatabase(path);
    const result = migrateDatabase(database);
    database.close();
    expect(result.applied).toBe(result.total);
    expect(result.total).toBeGreaterThan(0);
    expect(tables(path)).toEqual(expect.arrayContaining(expectedTables));
  });

  test("a second run on an already-migrated database applies nothing", () => {
    const database = openDatabase(join(makeTempDir(), "svc.db"));
    migrateDatabase(database);
    const before = database.sqlite.query("SELECT count(*) AS n FROM __drizzle_migrations").get();
    expect(migrateDatabase(database).applied).toBe(0);
    expect(database.sqlite.query("SELECT count(*) AS n FROM __drizzle_migrations").get()).toEqual(
      before,
    );
    database.close();
  });

  test("an older database is upgraded by exactly the migrations it lacks", () => {
    const all = readMigrationFolder();
    const database = openDatabase(join(makeTempDir(), "svc.db"));
    migrateDatabase(database, all);
    const next = {
      sql: ["CREATE TABLE upgrade_probe (id integer PRIMARY KEY)"],
      bps: true,
      folderMillis: (all.at(-1)?.folderMillis ?? 0) + 1000,
      hash: "probe",
    };
    expect(migrateDatabase(database, [...all, next])).toEqual({
      applied: 1,
      total: all.length + 1,
    });
    expect(
      database.sqlite.query("SELECT name FROM sqlite_master WHERE name = 'upgrade_probe'").get(),
    ).toBeTruthy();
    database.close();
  });

  test("a database migrated by a newer release is refused, not misread", () => {
    const all = readMigrationFolder();
    const database = openDatabase(join(makeTempDir(), "svc.db"));
    const future = {
      sql: ["SELECT 1"],
      bps: true,
      folderMillis: (all.at(-1)?.folderMillis ?? 0) + 1000,
      hash: "future",
    };
    migrateDatabase(database, [...all, future]);
    expect(() => migrateDatabase(database, all)).toThrow(MigrationError);
    database.close();
  });

  test("the connection runs with WAL, foreign keys, a busy timeout and synchronous=NORMAL", () => {
    const database = openDatabase(join(makeTempDir(), "svc.db"));
    const pragma = (name: string) =>
      Object.values(database.sqlite.query(`PRAGMA ${name}`).get() as object)[0];
    expect(pragma("journal_mode")).toBe("wal");
    expect(pragma("foreign_keys")).toBe(1);
    expect(pragma("busy_timeout")).toBe(5000);
    expect(pragma("synchronous")).toBe(1);
    database.close();
  });

  test("the database file and its directory are private to the service user", () => {
    const dir = join(makeTempDir(), "nested");
    const database = openDatabase(join(dir, "svc.db"));
    migrateDatabase(database);
    database.close();
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, "svc.db")).mode & 0o777).toBe(0o600);
  });
});
