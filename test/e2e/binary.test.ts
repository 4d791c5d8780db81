// The compiled binary, started from an empty directory as an operator would.
import { describe, expect, test } from "bun:test";
import { compiledBinary, runBinary, startBinary } from "../support/binary.ts";
import { makeTempDir } from "../support/temp.ts";

describe("compiled binary", () => {
  test("started from an empty directory it migrates, serves /healthz and the portal, and stops cleanly on SIGTERM", async () => {
    const binary = await compiledBinary();
    const cwd = makeTempDir("svc-empty");
    const server = await startBinary(binary, { cwd });
    expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${server.baseUrl}/readyz`)).status).toBe(200);
    const portal = await fetch(`${server.baseUrl}/`);
    expect(portal.status).toBe(200);
    expect(portal.headers.get("content-type")).toContain("text/html");
    const html = await portal.text();
    expect(html).toContain("<title>Svc portal</title>");
    const script = html.match(/src="(\/[^"]+\.js)"/)?.[1];
    expect(script).toBeDefined();
    expect((await fetch(`${server.baseUrl}${script}`)).status).toBe(200);
    expect(await server.stop("SIGTERM")).toBe(0);
    expect(server.stdout()).toMatch(/e-mail\s+admin@svc\.localhost/);
    expect(server.stdout()).toMatch(/password\s+[A-Za-z0-9]{20}/);
    expect(server.stderr()).toContain('"msg":"stopped"');
    expect(server.stderr()).not.toMatch(/password/i);
  }, 60_000);

  test("a second start prints no password and the database needs no migration", async () => {
    const binary = await compiledBinary();
    const cwd = makeTempDir("svc-restart");
    await (await startBinary(binary, { cwd })).stop();
    const again = await startBinary(binary, { cwd });
    expect(await again.stop()).toBe(0);
    expect(again.stdout()).not.toContain("password");
    const migrate = await runBinary(binary, ["migrate", "--json"], cwd);
    expect(JSON.parse(migrate.stdout).applied).toBe(0);
  }, 60_000);

  test("a backup taken while serving starts as a data dir of its own", async () => {
    const binary = await compiledBinary();
    const cwd = makeTempDir("svc-backup");
    const server = await startBinary(binary, { cwd });
    const backup = await runBinary(binary, ["backup", "snapshot"], cwd);
    expect(backup.code).toBe(0);
    await server.stop();
    const restored = await startBinary(binary, { cwd, args: ["--data-dir", "snapshot"] });
    expect((await fetch(`${restored.baseUrl}/readyz`)).status).toBe(200);
    await restored.stop();
    // The operator came with the backup, so no new one was created.
    expect(restored.stdout()).not.toContain("password");
    const accounts = await runBinary(
      binary,
      ["--data-dir", "snapshot", "accounts", "list", "--json"],
      cwd,
    );
    expect(JSON.parse(accounts.stdout)[0].users[0].email).toBe("admin@svc.localhost");
  }, 60_000);

  test("--help works for every command", async () => {
    const binary = await compiledBinary();
    const cwd = makeTempDir();
    for (const command of [
      [],
      ["serve"],
      ["setup"],
      ["migrate"],
      ["backup"],
      ["accounts"],
      ["accounts", "create"],
      ["endpoints"],
      ["endpoints", "add"],
      ["deliveries", "list"],
      ["mail", "list"],
    ]) {
      const run = await runBinary(binary, [...command, "--help"], cwd);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain("Usage: svc");
    }
  }, 60_000);
});

describe("a start that cannot listen", () => {
  test("fails clearly and creates no operator whose one-time password would be lost", async () => {
    const binary = await compiledBinary();
    const cwd = makeTempDir("svc-port-taken");
    const blocker = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
    try {
      const { stdout, stderr, code } = await runBinary(
        binary,
        ["serve", "--port", String(blocker.port)],
        cwd,
      );
      expect(code).not.toBe(0);
      expect(stdout).not.toContain("password");
      expect(stderr).toContain(`error: cannot listen on 127.0.0.1:${blocker.port}`);
      expect(stderr).not.toContain("unexpected error");
      const accounts = await runBinary(binary, ["accounts", "list", "--json"], cwd);
      expect(JSON.parse(accounts.stdout)).toEqual([]);
    } finally {
      await blocker.stop(true);
    }
  }, 60_000);
});
