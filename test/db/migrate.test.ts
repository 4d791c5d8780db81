// Migrations of both engines, from the SQL embedded at build time (the compiled binary's own
// migration is proven in test/e2e/binary.test.ts).
import { describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { dirname } from "node:path";
import { asc, eq, sql } from "drizzle-orm";
import {
  MigrationError,
  migrateDatabase,
  migratePostgres,
  migrateSqlite,
} from "../../src/db/migrate.ts";
import { readMigrationFolder } from "../../src/db/migration-files.ts";
import { type AnyDatabase, openDatabase } from "../../src/db/open.ts";
import { openTestDatabase, testEngine } from "../support/engine.ts";

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
  "rate_limit_log",
  "mail_outbox",
  "instance_meta",
];

async function tableNames(database: AnyDatabase): Promise<string[]> {
  const rows = await database.db.rows<{ name: string }>(
    database.engine === "sqlite"
      ? sql`SELECT name FROM sqlite_master WHERE type = 'table'`
      : sql`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()`,
  );
  return rows.map((row) => row.name);
}

async function migrationRows(database: AnyDatabase): Promise<number> {
  const [row] = await database.db.rows<{ n: number | string }>(
    sql`SELECT count(*) AS n FROM __drizzle_migrations`,
  );
  return Number(row?.n);
}

/** Migrates with an explicit list of migrations (for upgrades and newer databases). */
async function migrateWith(
  database: AnyDatabase,
  migrations: ReturnType<typeof readMigrationFolder>,
) {
  return database.engine === "sqlite"
    ? await migrateSqlite(database, migrations)
    : await migratePostgres(database, migrations);
}

describe(`migrations (${testEngine})`, () => {
  test("a fresh database is migrated to every table the spec needs", async () => {
    const { database } = await openTestDatabase();
    try {
      const result = await migrateDatabase(database);
      expect(result.applied).toBe(result.total);
      expect(result.total).toBeGreaterThan(0);
      expect(await tableNames(database)).toEqual(expect.arrayContaining(expectedTables));
    } finally {
      await database.close();
    }
  });

  test("a second run on an already-migrated database applies nothing", async () => {
    const { database } = await openTestDatabase();
    try {
      await migrateDatabase(database);
      const before = await migrationRows(database);
      expect((await migrateDatabase(database)).applied).toBe(0);
      expect(await migrationRows(database)).toBe(before);
    } finally {
      await database.close();
    }
  });

  test("several instances starting at once against an empty database migrate it exactly once", async () => {
    const { database, settings } = await openTestDatabase();
    const others = [openDatabase(settings), openDatabase(settings)];
    try {
      const results = await Promise.all([database, ...others].map((d) => migrateDatabase(d)));
      const applied = results.map((r) => r.applied).sort((a, b) => b - a);
      expect(applied).toEqual([results[0]?.total ?? -1, 0, 0]);
      expect(await migrationRows(database)).toBe(results[0]?.total ?? -1);
    } finally {
      for (const other of others) await other.close();
      await database.close();
    }
  });

  test("an older database is upgraded by exactly the migrations it lacks", async () => {
    const all = readMigrationFolder(testEngine);
    const { database } = await openTestDatabase();
    try {
      await migrateWith(database, all);
      const next = {
        sql: ["CREATE TABLE upgrade_probe (id integer PRIMARY KEY)"],
        bps: true,
        folderMillis: (all.at(-1)?.folderMillis ?? 0) + 1000,
        hash: "probe",
      };
      expect(await migrateWith(database, [...all, next])).toEqual({
        applied: 1,
        total: all.length + 1,
      });
      expect(await tableNames(database)).toContain("upgrade_probe");
    } finally {
      await database.close();
    }
  });

  test("a database migrated by a newer release is refused, not misread", async () => {
    const all = readMigrationFolder(testEngine);
    const { database } = await openTestDatabase();
    try {
      const future = {
        sql: ["SELECT 1"],
        bps: true,
        folderMillis: (all.at(-1)?.folderMillis ?? 0) + 1000,
        hash: "future",
      };
      await migrateWith(database, [...all, future]);
      await expect(migrateWith(database, all)).rejects.toThrow(MigrationError);
    } finally {
      await database.close();
    }
  });
});

describe.if(testEngine === "sqlite")("the SQLite file", () => {
  test("the writer runs with WAL, foreign keys and synchronous=NORMAL, and never sleeps inside SQLite; the reader waits for WAL recovery", async () => {
    const { database } = await openTestDatabase();
    try {
      if (database.engine !== "sqlite") throw new Error("SQLite only");
      const pragma = (connection: typeof database.writer, name: string) =>
        Object.values(connection.query(`PRAGMA ${name}`).get() as object)[0];
      expect(pragma(database.writer, "journal_mode")).toBe("wal");
      expect(pragma(database.writer, "foreign_keys")).toBe(1);
      expect(pragma(database.writer, "synchronous")).toBe(1);
      expect(pragma(database.writer, "busy_timeout")).toBe(0);
      expect(pragma(database.reader, "busy_timeout")).toBe(5000);
    } finally {
      await database.close();
    }
  });

  test("the database file and its directory are private to the service user", async () => {
    const { database } = await openTestDatabase();
    try {
      if (database.engine !== "sqlite") throw new Error("SQLite only");
      await migrateDatabase(database);
      expect(statSync(dirname(database.path)).mode & 0o777).toBe(0o700);
      expect(statSync(database.path).mode & 0o777).toBe(0o600);
    } finally {
      await database.close();
    }
  });
});

describe(`upgrading a database with data (${testEngine})`, () => {
  test("transactions written before the page migration keep every row and link, and gain their JSON and the reverse link", async () => {
    const all = readMigrationFolder(testEngine);
    const pageMigration = all.findIndex((m) =>
      m.sql.some((s) => s.includes("pending_transaction_id")),
    );
    expect(pageMigration).toBeGreaterThan(0);
    const { database } = await openTestDatabase();
    try {
      await migrateWith(database, all.slice(0, pageMigration));
      const now = 1_768_467_600_000;
      const insert = (table: string, values: Record<string, unknown>) =>
        database.db.write((tx) =>
          tx.rows(
            sql`INSERT INTO ${sql.identifier(table)} (${sql.join(
              Object.keys(values).map((k) => sql.identifier(k)),
              sql`, `,
            )}) VALUES (${sql.join(
              Object.values(values).map((v) => sql`${v}`),
              sql`, `,
            )})`,
          ),
        );
      await insert("service_accounts", { id: "a0", name: "Old", created_at: now, updated_at: now });
      await insert("connections", {
        id: "c0",
        service_account_id: "a0",
        provider: "import",
        external_id: "c0",
        institution: "Old Bank",
        status: "linked",
        created_at: now,
        updated_at: now,
      });
      await insert("bank_accounts", {
        id: "b0",
        connection_id: "c0",
        service_account_id: "a0",
        external_id: "b0",
        name: "Old account",
        type: "current",
        currency: "EUR",
        institution: "Old Bank",
        created_at: now,
        updated_at: now,
      });
      const row = (id: string, status: string, bookedId: string | null) => ({
        id,
        account_id: "b0",
        external_id: id,
        status,
        amount: "-1.50",
        currency: "EUR",
        booking_date: "2026-01-14",
        description: 'Card "quoted" payment',
        booked_transaction_id: bookedId,
        created_at: now,
        updated_at: now,
      });
      await insert("transactions", row("t-pending", "pending", "t-booked"));
      await insert("transactions", row("t-booked", "booked", null));
      await migrateDatabase(database);
      const { transactions } = database.db.t;
      const rows = await database.db.select().from(transactions).orderBy(asc(transactions.id));
      expect(rows.map((r) => [r.id, r.bookedTransactionId, r.pendingTransactionId])).toEqual([
        ["t-booked", null, "t-pending"],
        ["t-pending", "t-booked", null],
      ]);
      expect(JSON.parse(rows[0]?.json ?? "")).toEqual({
        transaction_id: "t-booked",
        account_id: "b0",
        status: "booked",
        amount: "-1.50",
        currency: "EUR",
        booking_date: "2026-01-14",
        value_date: null,
        description: 'Card "quoted" payment',
        counterparty_name: null,
        merchant_name: null,
        pending_transaction_id: "t-pending",
        booked_transaction_id: null,
      });
      // The data-generation triggers survived the table's rebuild.
      const generation = async () =>
        (await database.db.select().from(database.db.t.serviceAccounts))[0]?.dataGeneration;
      const before = await generation();
      await database.db.write((tx) =>
        tx.update(transactions).set({ amount: "-2.00" }).where(eq(transactions.id, "t-booked")),
      );
      expect(await generation()).not.toBe(before);
    } finally {
      await database.close();
    }
  });
});
