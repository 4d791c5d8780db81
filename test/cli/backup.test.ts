import { describe, expect, test } from "bun:test";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
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
    const result = backup.json<{
      database_file: string;
      master_key_included: boolean;
      restore_steps: string[];
    }>();
    expect(result.database_file).toBe(join(cwd, "snap", "svc.pgdump"));
    // The steps it prints restore into a database, not a start from the directory alone.
    expect(result.restore_steps[1]).toStartWith("pg_restore --no-owner --dbname=");
    expect(result.restore_steps[2]).toContain(`--data-dir ${join(cwd, "snap")} --database-url`);
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

interface Checked {
  integrity: string;
  master_key: string;
  problems: string[];
}

// Owner-only modes, a check of what was written, and --verify.
describe("svc backup: modes and checks", () => {
  interface Written {
    directory: string;
    database_file: string;
    check: { integrity: string; master_key: string };
  }

  async function backedUp(env: Record<string, string> = {}) {
    const cwd = await installedDir(makeTempDir(), { env });
    const run = await runSvc(["backup", "snap", "--json"], { cwd, env });
    expect(run.code).toBe(0);
    return { cwd, written: run.json<Written>() };
  }

  test("the backup directory is 0700 and every file in it 0600, whatever the umask", async () => {
    const { written } = await backedUp();
    expect(statSync(written.directory).mode & 0o777).toBe(0o700);
    const files = readdirSync(written.directory);
    expect(files).toContain("master.key");
    expect(files).toContain(written.database_file.split("/").at(-1) as string);
    for (const name of files) {
      expect({ name, mode: statSync(join(written.directory, name)).mode & 0o777 }).toEqual({
        name,
        mode: 0o600,
      });
    }
  });

  test("an empty directory given as the target is narrowed to 0700 too", async () => {
    const cwd = await installedDir(makeTempDir());
    mkdirSync(join(cwd, "open"), { mode: 0o755 });
    chmodSync(join(cwd, "open"), 0o755);
    expect((await runSvc(["backup", "open"], { cwd })).code).toBe(0);
    expect(statSync(join(cwd, "open")).mode & 0o777).toBe(0o700);
  });

  test("the backup checks what it wrote: the snapshot read back sound and the master key matching it", async () => {
    const { written } = await backedUp();
    expect(written.check).toEqual({ integrity: "ok", master_key: "matches" });
  });

  test("--verify passes a sound backup (exit 0) without needing a data dir", async () => {
    const { written } = await backedUp();
    const elsewhere = makeTempDir();
    const run = await runSvc(["backup", "--verify", written.directory, "--json"], {
      cwd: elsewhere,
    });
    expect(run.code).toBe(0);
    expect(run.json<Checked>()).toMatchObject({
      integrity: "ok",
      master_key: "matches",
      problems: [],
    });
    expect(existsSync(join(elsewhere, "data"))).toBe(false);
  });

  test("--verify refuses a backup whose master key is not the one its secrets were made with (exit 1)", async () => {
    const { cwd, written } = await backedUp();
    writeFileSync(join(written.directory, "master.key"), `${"cd".repeat(32)}\n`, { mode: 0o600 });
    const run = await runSvc(["backup", "--verify", "snap", "--json"], { cwd });
    expect(run.code).toBe(1);
    expect(run.json<Checked>().master_key).toBe("does not match");
    expect(run.stderr).toContain("1 problem");
  });

  test("--verify refuses files or a directory others can read", async () => {
    const { cwd, written } = await backedUp();
    chmodSync(join(written.directory, "master.key"), 0o644);
    chmodSync(written.directory, 0o755);
    const run = await runSvc(["backup", "--verify", "snap", "--json"], { cwd });
    expect(run.code).toBe(1);
    const problems = run.json<Checked>().problems.join("\n");
    expect(problems).toContain("has mode 755");
    expect(problems).toContain("master.key has mode 644");
  });

  test("--verify without the master key (it came from SVC_MASTER_KEY) says so; with it set, it passes", async () => {
    const env = { SVC_MASTER_KEY: "ab".repeat(32) };
    const { cwd } = await backedUp(env);
    const without = await runSvc(["backup", "--verify", "snap", "--json"], {
      cwd,
      env: { SVC_MASTER_KEY: undefined },
    });
    expect(without.code).toBe(1);
    expect(without.json<Checked>().problems.join()).toContain("no master key");
    const withKey = await runSvc(["backup", "--verify", "snap", "--json"], { cwd, env });
    expect(withKey.code).toBe(0);
  });

  test("a mistaken call is a usage error (exit 2)", async () => {
    const cwd = makeTempDir();
    expect((await runSvc(["backup"], { cwd })).code).toBe(2);
    expect((await runSvc(["backup", "a", "--verify", "b"], { cwd })).code).toBe(2);
  });
});

describe.if(testEngine === "sqlite")("svc backup --verify on SQLite", () => {
  test("a damaged snapshot is reported by SQLite's integrity check (exit 1)", async () => {
    const cwd = await installedDir(makeTempDir());
    await runSvc(["accounts", "create", "--email", "damage@example.com"], { cwd });
    expect((await runSvc(["backup", "snap"], { cwd })).code).toBe(0);
    const file = join(cwd, "snap", "svc.db");
    const bytes = readFileSync(file);
    // Overwrite every page after the first (the header stays, so SQLite opens it and checks).
    bytes.fill(0x5a, 4096);
    writeFileSync(file, bytes);
    const run = await runSvc(["backup", "--verify", "snap", "--json"], { cwd });
    expect(run.code).toBe(1);
    const checked = run.json<Checked>();
    expect(checked.integrity).not.toBe("ok");
    expect(checked.problems.join()).toContain("the database snapshot is damaged");
  });
});
