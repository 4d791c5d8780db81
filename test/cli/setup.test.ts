import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { verifyPassword } from "../../src/accounts/passwords.ts";
import { findUserByEmail } from "../../src/accounts/users.ts";
import { loadConfig } from "../../src/config/config.ts";
import { silentLogger } from "../../src/log/log.ts";
import { openServices } from "../../src/server/services.ts";
import { runSvc } from "../support/cli.ts";
import { engineEnvFor } from "../support/engine.ts";
import { makeTempDir } from "../support/temp.ts";

function passwordFile(dir: string, password: string): string {
  const path = join(dir, "admin-password");
  writeFileSync(path, `${password}\n`, { mode: 0o600 });
  return path;
}

describe("svc setup without a terminal", () => {
  test("with the flags it writes the config and master key, migrates and creates the operator", async () => {
    const cwd = makeTempDir();
    const run = await runSvc(
      [
        "setup",
        "--yes",
        "--data-dir",
        "state",
        "--base-url",
        "https://bank-api.example.com/",
        "--source-ip",
        "203.0.113.10",
        "--admin-email",
        "Ops@Example.com",
        "--admin-password-file",
        passwordFile(cwd, "correct horse battery"),
        "--json",
      ],
      { cwd },
    );
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const result = run.json<{
      configFile: string;
      operator: { email: string; created: boolean };
    }>();
    expect(result.operator).toEqual({ email: "ops@example.com", created: true });
    const dataDir = join(cwd, "state");
    expect(JSON.parse(readFileSync(join(dataDir, "svc.json"), "utf8"))).toEqual({
      baseUrl: "https://bank-api.example.com/",
      deliverySourceIp: "203.0.113.10",
    });
    expect(statSync(join(dataDir, "svc.json")).mode & 0o777).toBe(0o600);
    expect(statSync(join(dataDir, "master.key")).mode & 0o777).toBe(0o600);
    const config = loadConfig({ env: await engineEnvFor(cwd), cwd, flags: { dataDir: "state" } });
    expect(config.baseUrl).toBe("https://bank-api.example.com");
    const services = await openServices(config, { log: silentLogger });
    const user = await findUserByEmail(services.db, "ops@example.com");
    expect(user?.isOperator).toBe(true);
    expect(await verifyPassword("correct horse battery", user?.passwordHash ?? "")).toBe(true);
    await services.database.close();
  });

  test("run again, it keeps the master key and the operator and changes nothing else", async () => {
    const cwd = makeTempDir();
    const args = [
      "setup",
      "--yes",
      "--data-dir",
      "d",
      "--base-url",
      "https://a.example.com",
      "--admin-email",
      "ops@example.com",
    ];
    const first = await runSvc([...args, "--json"], { cwd });
    expect(first.code).toBe(0);
    const key = readFileSync(join(cwd, "d", "master.key"), "utf8");
    const second = await runSvc([...args, "--json"], { cwd });
    expect(second.code).toBe(0);
    expect(second.json<{ operator: { created: boolean } }>().operator.created).toBe(false);
    expect(readFileSync(join(cwd, "d", "master.key"), "utf8")).toBe(key);
  });

  test("without a password file a one-time password is generated and printed once", async () => {
    const cwd = makeTempDir();
    const run = await runSvc(["setup", "--yes", "--admin-email", "ops@example.com"], { cwd });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/password\s+[A-Za-z0-9]{20}\s+\(one-time/);
    expect(run.stdout).toContain("svc serve --data-dir ./data");
  });

  test("without a terminal and without flags it fails at once with a clear message", async () => {
    const cwd = makeTempDir();
    const run = await runSvc(["setup"], { cwd, interactive: false });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/no terminal.*--yes/);
    expect(existsSync(join(cwd, "data"))).toBe(false);
  });

  test("some flags but not --yes: it names the missing ones instead of guessing", async () => {
    const run = await runSvc(["setup", "--source-ip", "203.0.113.10"], { cwd: makeTempDir() });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--base-url and --admin-email");
  });

  test.each([
    [["--base-url", "not-a-url"], /base URL must be an absolute URL/],
    [["--source-ip", "10.0.0.300"], /delivery source IP must be an IPv4 or IPv6 address/],
    [["--admin-email", "nobody"], /operator e-mail must be an e-mail address/],
  ])("a bad answer %p is refused before anything is written", async (flags, message) => {
    const cwd = makeTempDir();
    const run = await runSvc(["setup", "--yes", ...flags], { cwd });
    expect(run.code).toBe(78);
    expect(run.stderr).toMatch(message);
    expect(existsSync(join(cwd, "data", "svc.json"))).toBe(false);
  });

  test("a password that is too short is refused", async () => {
    const cwd = makeTempDir();
    const run = await runSvc(
      ["setup", "--yes", "--admin-password-file", passwordFile(cwd, "short")],
      { cwd },
    );
    expect(run.code).toBe(78);
    expect(run.stderr).toContain("operator password must be at least 12 characters");
  });
});
