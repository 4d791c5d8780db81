import { describe, expect, test } from "bun:test";
import { installedDir, runSvc } from "../support/cli.ts";
import { makeTempDir } from "../support/temp.ts";

async function account(cwd: string): Promise<string> {
  const created = await runSvc(["accounts", "create", "--email", "k@example.com", "--json"], {
    cwd,
  });
  expect(created.code).toBe(0);
  return created.json<{ id: string }>().id;
}

describe("svc keys", () => {
  test("create prints the key once (--json: {id, key, prefix, ...}); list shows the prefix, never the key", async () => {
    const cwd = await installedDir(makeTempDir());
    const accountId = await account(cwd);
    const created = await runSvc(
      ["keys", "create", "--account", accountId, "--name", "production", "--json"],
      { cwd },
    );
    expect(created.code).toBe(0);
    const key = created.json<{
      id: string;
      key: string;
      prefix: string;
      name: string;
      service_account_id: string;
      revoked_at: null;
    }>();
    expect(key.key).toMatch(/^svk_[A-Za-z0-9_-]{8}_[A-Za-z0-9_-]{43}$/);
    expect(key.prefix).toBe(key.key.slice(0, 12));
    expect(key).toMatchObject({
      name: "production",
      service_account_id: accountId,
      revoked_at: null,
    });

    const human = await runSvc(["keys", "create", "--account", accountId], { cwd });
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/\n {2}svk_[A-Za-z0-9_-]{8}_[A-Za-z0-9_-]{43}\n/);
    expect(human.stdout).toContain("only time the full key is shown");

    const listed = await runSvc(["keys", "list", "--account", accountId], { cwd });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(key.prefix);
    expect(listed.stdout).toContain("production");
    expect(listed.stdout).not.toContain(key.key);
    const listedJson = await runSvc(["keys", "list", "--account", accountId, "--json"], { cwd });
    expect(listedJson.json<unknown[]>()).toHaveLength(2);
    expect(listedJson.stdout).not.toContain(key.key.slice(12));
  });

  test("revoke marks the key revoked; it stays listed with its revocation date", async () => {
    const cwd = await installedDir(makeTempDir());
    const accountId = await account(cwd);
    const { id } = (
      await runSvc(["keys", "create", "--account", accountId, "--json"], { cwd })
    ).json<{ id: string }>();
    const revoked = await runSvc(["keys", "revoke", id], { cwd });
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(`revoked key ${id}`);
    const again = await runSvc(["keys", "revoke", id], { cwd });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("already revoked");
    const listed = (await runSvc(["keys", "list", "--account", accountId, "--json"], { cwd })).json<
      { id: string; status: string; revoked_at: string }[]
    >();
    expect(listed).toEqual([
      expect.objectContaining({ id, status: "revoked", revoked_at: expect.any(String) }),
    ]);
  });

  test("bad input is answered with a clear error", async () => {
    const cwd = await installedDir(makeTempDir());
    await runSvc(["migrate"], { cwd });
    const missingAccount = await runSvc(
      ["keys", "create", "--account", "00000000-0000-4000-8000-000000000000"],
      { cwd },
    );
    expect(missingAccount.code).toBe(1);
    expect(missingAccount.stderr).toBe(
      "error: No service account 00000000-0000-4000-8000-000000000000.\n",
    );
    const noAccount = await runSvc(["keys", "create"], { cwd });
    expect(noAccount.code).not.toBe(0);
    expect(noAccount.stderr).toContain("--account");
    const unknownKey = await runSvc(["keys", "revoke", "00000000-0000-4000-8000-000000000000"], {
      cwd,
    });
    expect(unknownKey.code).toBe(1);
    expect(unknownKey.stderr).toContain("No API key");
    const fullKey = await runSvc(["keys", "revoke", `svk_${"a".repeat(8)}_${"b".repeat(43)}`], {
      cwd,
    });
    expect(fullKey.code).toBe(2);
    expect(fullKey.stderr).toContain("not the key itself");
  });

  test("--help explains each command", async () => {
    const cwd = await installedDir(makeTempDir());
    const help = await runSvc(["keys", "--help"], { cwd });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("create");
    expect(help.stdout).toContain("revoke");
    const createHelp = await runSvc(["keys", "create", "--help"], { cwd });
    expect(createHelp.stdout).toContain("printed once");
  });
});
