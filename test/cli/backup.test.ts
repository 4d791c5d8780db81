import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { installedDir, runSvc } from "../support/cli.ts";
import { createTestDatabase, testEngine } from "../support/engine.ts";
import { makeTempDir } from "../support/temp.ts";

describe("svc backup", () => {
  test("writes a data dir (database, master key, config) that a start from it reads back", async () => {
    const cwd = makeTempDir();
    expect(
      (await runSvc(["setup", "--yes", "--base-url", "https://b.example.com"], { cwd })).code,
    ).toBe(0);
    const created = await runSvc(["accounts", "create", "--email", "owner@example.com", "--json"], {
      cwd,
    });
    expect(created.code).toBe(0);
    const accountId = created.json<{ id: string }>().id;

    const backup = await runSvc(["backup", "snap", "--json"], { cwd });
    expect(backup.code).toBe(0);
    const result = backup.json<{
      directory: string;
      master_key_included: boolean;
      config_included: boolean;
    }>();
    expect(result.master_key_included).toBe(true);
    expect(result.config_included).toBe(true);
    expect(readFileSync(join(cwd, "snap", "master.key"), "utf8")).toBe(
      readFileSync(join(cwd, "data", "master.key"), "utf8"),
    );
    expect(statSync(join(cwd, "snap", "master.key")).mode & 0o777).toBe(0o600);

    const restored = await runSvc(["--data-dir", "snap", "accounts", "list", "--json"], { cwd });
    expect(restored.code).toBe(0);
    expect(restored.json<{ id: string }[]>().map((a) => a.id)).toContain(accountId);
  });

  test("refuses a target that already holds files", async () => {
    const cwd = makeTempDir();
    await runSvc(["migrate"], { cwd });
    mkdirSync(join(cwd, "occupied"));
    writeFileSync(join(cwd, "occupied", "x"), "x");
    const run = await runSvc(["backup", "occupied"], { cwd });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("is not an empty directory");
  });

  test("says clearly when the master key is not included (it came from SVC_MASTER_KEY)", async () => {
    const cwd = makeTempDir();
    const env = { SVC_MASTER_KEY: "ab".repeat(32) };
    await runSvc(["migrate"], { cwd, env });
    const run = await runSvc(["backup", "snap"], { cwd, env });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("master key  NOT included");
    expect(run.stdout).toContain("SVC_MASTER_KEY");
  });
});

describe("svc migrate", () => {
  test("migrates a fresh database and a second run is a no-op", async () => {
    const cwd = makeTempDir();
    const first = await runSvc(["migrate", "--json"], { cwd });
    expect(first.code).toBe(0);
    const second = await runSvc(["migrate", "--json"], { cwd });
    expect(second.json<{ applied: number }>().applied).toBe(0);
  });
});

describe("svc accounts", () => {
  test("create, update and list with --json print the records with their ids", async () => {
    const cwd = await installedDir(makeTempDir());
    const created = await runSvc(
      [
        "accounts",
        "create",
        "--email",
        "a@example.com",
        "--status",
        "active",
        "--subscription",
        "trialing",
        "--json",
      ],
      { cwd },
    );
    const account = created.json<{
      id: string;
      status: string;
      subscription_status: string;
      one_time_password: string;
    }>();
    expect(account.status).toBe("active");
    expect(account.subscription_status).toBe("trialing");
    expect(account.one_time_password).toMatch(/^[A-Za-z0-9]{20}$/);
    const updated = await runSvc(
      ["accounts", "update", account.id, "--payment-failed", "true", "--demo", "false", "--json"],
      { cwd },
    );
    expect(updated.json<{ payment_failed: boolean }>().payment_failed).toBe(true);
    const listed = await runSvc(["accounts", "list", "--search", "a@example", "--json"], { cwd });
    expect(listed.json<{ id: string }[]>().map((a) => a.id)).toEqual([account.id]);
  });

  test("bad input is answered with a clear error", async () => {
    const cwd = await installedDir(makeTempDir());
    expect(
      (
        await runSvc(["accounts", "create", "--email", "x@example.com", "--status", "gold"], {
          cwd,
        })
      ).stderr,
    ).toContain("--status must be one of sandbox, active, lapsed");
    const missing = await runSvc(
      ["accounts", "update", "00000000-0000-4000-8000-000000000000", "--demo", "true"],
      { cwd },
    );
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("No service account");
    expect(
      (await runSvc(["accounts", "update", "x", "--demo", "perhaps"], { cwd })).stderr,
    ).toContain("--demo must be true or false");
    await runSvc(["accounts", "create", "--email", "dup@example.com"], { cwd });
    expect(
      (await runSvc(["accounts", "create", "--email", "DUP@example.com"], { cwd })).stderr,
    ).toContain("already exists");
  });
});

describe.if(testEngine === "postgres")("svc backup on PostgreSQL", () => {
  test("pg_dump writes svc.pgdump beside the master key; pg_restore brings the data back into an empty database", async () => {
    const cwd = await installedDir(makeTempDir());
    const created = await runSvc(["accounts", "create", "--email", "pg@example.com", "--json"], {
      cwd,
    });
    expect(created.code).toBe(0);
    const accountId = created.json<{ id: string }>().id;
    const backup = await runSvc(["backup", "snap", "--json"], { cwd });
    expect(backup.code).toBe(0);
    const result = backup.json<{ database_file: string; master_key_included: boolean }>();
    expect(result.database_file).toBe(join(cwd, "snap", "svc.pgdump"));
    expect(result.master_key_included).toBe(true);

    const restored = await createTestDatabase();
    const restore = Bun.spawnSync([
      "pg_restore",
      "--no-owner",
      `--dbname=${restored.url}`,
      result.database_file,
    ]);
    expect(restore.exitCode).toBe(0);
    const listed = await runSvc(["--data-dir", "snap", "accounts", "list", "--json"], {
      cwd,
      env: { SVC_DATABASE_URL: restored.url },
    });
    expect(listed.code).toBe(0);
    expect(listed.json<{ id: string }[]>().map((a) => a.id)).toContain(accountId);
  });
});
