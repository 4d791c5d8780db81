// svc db copy --to URL: an install moves from its SQLite file to PostgreSQL with every row, the
// same answers from the API afterwards, and signatures that still verify (the master key stays).
// Cross-engine by nature, so it runs in both test runs.

import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { loadConfig } from "../../src/config/config.ts";
import { copyOrder } from "../../src/db/copy.ts";
import { openDatabase } from "../../src/db/open.ts";
import type { Db } from "../../src/db/store.ts";
import { silentLogger } from "../../src/log/log.ts";
import { createHttpApp } from "../../src/server/app.ts";
import { openServices } from "../../src/server/services.ts";
import { insertTransactions } from "../support/bank-fixtures.ts";
import { installedDir, runSvc } from "../support/cli.ts";
import { createTestDatabase } from "../support/engine.ts";
import { createFakeClock } from "../support/fake-clock.ts";
import { testMasterKeyHex } from "../support/services.ts";
import { makeTempDir } from "../support/temp.ts";

const sqliteOnly = { SVC_DATABASE_URL: undefined, SVC_MASTER_KEY: testMasterKeyHex };

async function counts(db: Db): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const name of copyOrder) out[name] = await db.$count(db.t[name] as never);
  return out;
}

describe("svc db copy", () => {
  test("copies every row of a SQLite install into an empty PostgreSQL database; the API answers the same from either", async () => {
    const cwd = await installedDir(makeTempDir("svc-copy"), { env: sqliteOnly });
    const clock = createFakeClock();
    const svc = (...argv: string[]) => runSvc([...argv, "--json"], { cwd, clock, env: sqliteOnly });
    const account = (await svc("accounts", "create", "--email", "copy@example.com")).json<{
      id: string;
    }>();
    const key = (await svc("keys", "create", "--account", account.id)).json<{ key: string }>().key;
    expect((await svc("sandbox", "connect", "--account", account.id, "--seed", "5")).code).toBe(0);
    expect((await svc("sync")).code).toBe(0);

    const target = await createTestDatabase();
    const copied = await svc("db", "copy", "--to", target.url);
    expect(copied.code).toBe(0);
    const summary = copied.json<{ target: string; rows: number; tables: Record<string, number> }>();
    expect(summary.tables.transactions).toBeGreaterThan(50);

    const dataDir = join(cwd, "data");
    const source = openDatabase({ dataDir });
    const copy = openDatabase({ dataDir, databaseUrl: target.url });
    try {
      expect(await counts(copy.db)).toEqual(await counts(source.db));
    } finally {
      await source.close();
      await copy.close();
    }

    // The same request answered by an app on each engine; a change-feed cursor read on SQLite
    // goes on on PostgreSQL, where new changes are numbered after the copied ones.
    const answers: string[] = [];
    let feedCursor: string | undefined;
    for (const databaseUrl of [undefined, target.url]) {
      const config = loadConfig({ env: {}, cwd, flags: { dataDir } });
      const services = await openServices(
        { ...config, ...(databaseUrl ? { databaseUrl } : {}) },
        { clock, log: silentLogger, env: { SVC_MASTER_KEY: testMasterKeyHex } },
      );
      try {
        const app = createHttpApp(services);
        const accounts = await app.fetch(
          new Request("http://svc.test/v1/accounts", {
            headers: { Authorization: `Bearer ${key}` },
          }),
        );
        const list = (await accounts.json()) as { data: { account_id: string }[] };
        const first = list.data[0]?.account_id;
        const page = await app.fetch(
          new Request(`http://svc.test/v1/accounts/${first}/transactions?limit=50`, {
            headers: { Authorization: `Bearer ${key}` },
          }),
        );
        expect(page.status).toBe(200);
        answers.push(JSON.stringify([list, await page.json()]));
        const changes = async () => {
          const query = feedCursor ? `?limit=500&cursor=${feedCursor}` : "?limit=500";
          const response = await app.fetch(
            new Request(`http://svc.test/v1/accounts/${first}/transactions/changes${query}`, {
              headers: { Authorization: `Bearer ${key}` },
            }),
          );
          const body = (await response.json()) as {
            added: { transaction_id: string }[];
            next_cursor: string;
            has_more: boolean;
          };
          feedCursor = body.next_cursor;
          return body;
        };
        if (!databaseUrl) {
          while ((await changes()).has_more);
        } else {
          expect((await changes()).added).toEqual([]);
          const [added] = await insertTransactions(services.db, clock, first as string, [
            { bookingDate: "2026-01-14" },
          ]);
          expect((await changes()).added.map((t) => t.transaction_id)).toEqual([added as string]);
        }
      } finally {
        await services.database.close();
      }
    }
    expect(answers[1]).toBe(answers[0] as string);

    // A second copy into the same (now full) database is refused, and changes nothing.
    const again = await svc("db", "copy", "--to", target.url);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("not empty");
  }, 60_000);

  test("a bad URL is a usage error that never shows the password", async () => {
    const cwd = makeTempDir("svc-copy-bad");
    const run = await runSvc(["db", "copy", "--to", "mysql://root:hunter2@db/svc"], {
      cwd,
      env: sqliteOnly,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("postgres://");
    expect(run.stderr).not.toContain("hunter2");
  });
});
