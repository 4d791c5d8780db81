// What an operator meets in the first hour, through the compiled binary: a PostgreSQL backup is
// not silently replaced by an empty SQLite database, `setup --yes` run again keeps what it is not
// given, booleans in svc.json are JSON booleans, the unsafe-mode warning names its source, and
// the settings `svc serve` was given as flags reach the other commands (operator guide).
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { compiledBinary, freePort, runBinary, startBinary } from "../support/binary.ts";
import { startReceiver } from "../support/receiver.ts";
import { makeTempDir } from "../support/temp.ts";
import { testCertificates } from "../support/webhooks.ts";

// No database URL at all: the refusal is about a data dir without one.
const noDatabaseUrl = { SVC_DATABASE_URL: "" };

describe("a data dir holding a PostgreSQL backup", () => {
  test.each([["serve"], ["migrate"]])(
    "svc %s without a database URL refuses it and says how to restore (exit 78)",
    async (command) => {
      const binary = await compiledBinary();
      const cwd = makeTempDir("svc-pgdump");
      const dataDir = join(cwd, "snap");
      await runBinary(binary, ["migrate", "--data-dir", "other"], cwd, noDatabaseUrl);
      Bun.spawnSync(["mkdir", "-m", "700", dataDir]);
      writeFileSync(join(dataDir, "svc.pgdump"), "PGDMP", { mode: 0o600 });
      const run = await runBinary(binary, [command, "--data-dir", "snap"], cwd, noDatabaseUrl);
      expect(run.code).toBe(78);
      expect(run.stderr).toContain("holds a PostgreSQL backup (svc.pgdump) but no database URL");
      expect(run.stderr).toContain(`pg_restore --no-owner --dbname=`);
      expect(run.stderr).toContain(`svc serve --data-dir ${dataDir} --database-url`);
      expect(existsSync(join(dataDir, "svc.db"))).toBe(false);
    },
    60_000,
  );
});

describe("svc setup --yes run again", () => {
  test("keeps every setting it is not given and names the ones it changed", async () => {
    const binary = await compiledBinary();
    const cwd = makeTempDir("svc-setup-again");
    const first = await runBinary(
      binary,
      [
        ...["setup", "--yes", "--base-url", "https://bank-api.example.com"],
        ...["--source-ip", "203.0.113.10", "--admin-email", "ops@example.com"],
      ],
      cwd,
    );
    expect(first.code).toBe(0);
    const again = await runBinary(binary, ["setup", "--yes"], cwd);
    expect(again.code).toBe(0);
    expect(JSON.parse(readFileSync(join(cwd, "data", "svc.json"), "utf8"))).toEqual({
      baseUrl: "https://bank-api.example.com",
      deliverySourceIp: "203.0.113.10",
    });
    expect(again.stdout).toContain("svc.json: nothing changed");
    expect(again.stdout).toMatch(/operator\s+ops@example\.com \(existing/);
    expect(again.stdout).not.toContain("was not added");

    const changed = await runBinary(
      binary,
      ["setup", "--yes", "--base-url", "https://api.example.org", "--json"],
      cwd,
    );
    expect(changed.code).toBe(0);
    expect(JSON.parse(changed.stdout).changed).toEqual([
      { key: "baseUrl", from: "https://bank-api.example.com", to: "https://api.example.org" },
    ]);
    expect(JSON.parse(readFileSync(join(cwd, "data", "svc.json"), "utf8")).deliverySourceIp).toBe(
      "203.0.113.10",
    );
  }, 60_000);

  test("its Next step says the server listens on plain HTTP at 127.0.0.1 and the https base URL needs a proxy or the TLS settings", async () => {
    const binary = await compiledBinary();
    const cwd = makeTempDir("svc-setup-next");
    const run = await runBinary(
      binary,
      ["setup", "--yes", "--base-url", "https://bank-api.example.com"],
      cwd,
    );
    expect(run.code).toBe(0);
    const next = run.stdout.slice(run.stdout.indexOf("Next:"));
    expect(next).toContain("listens on plain HTTP at http://127.0.0.1:8080");
    expect(next).toContain("reverse proxy");
    expect(next).toContain("tlsCertFile and tlsKeyFile");
    expect(next).toContain("npx bun run svc serve --data-dir ./data");
  }, 60_000);
});

describe("booleans and the unsafe-mode warning", () => {
  test('a string where svc.json wants a boolean ("yes") stops start-up naming the file and the key', async () => {
    const binary = await compiledBinary();
    const cwd = makeTempDir("svc-bool");
    await runBinary(binary, ["migrate"], cwd);
    const file = join(cwd, "data", "svc.json");
    writeFileSync(file, JSON.stringify({ unsafeAllowPrivateTargets: "yes" }));
    const run = await runBinary(binary, ["serve", "--port", String(await freePort())], cwd);
    expect(run.code).toBe(78);
    expect(run.stderr).toContain(
      `${file}: unsafeAllowPrivateTargets="yes": must be a JSON boolean`,
    );
  }, 60_000);

  test.each([
    ["the config file", "file"],
    ["the environment", "env"],
    ["a flag", "flag"],
  ])(
    "the warning that unsafe mode is on names %s as its source",
    async (_name, source) => {
      const binary = await compiledBinary();
      const cwd = makeTempDir("svc-unsafe");
      await runBinary(binary, ["migrate"], cwd);
      const file = join(cwd, "data", "svc.json");
      if (source === "file")
        writeFileSync(file, JSON.stringify({ unsafeAllowPrivateTargets: true }));
      const server = await startBinary(binary, {
        cwd,
        ...(source === "flag" ? { args: ["--unsafe-allow-private-targets"] } : {}),
        ...(source === "env" ? { env: { SVC_UNSAFE_ALLOW_PRIVATE_TARGETS: "yes" } } : {}),
      });
      await server.stop();
      const expected = {
        file: `set by config file ${file}: unsafeAllowPrivateTargets`,
        env: "set by environment SVC_UNSAFE_ALLOW_PRIVATE_TARGETS",
        flag: "set by flag --unsafe-allow-private-targets",
      }[source];
      expect(server.stderr()).toContain(`unsafeAllowPrivateTargets is on (${expected})`);
    },
    60_000,
  );
});

describe("the settings svc serve was given as flags", () => {
  test("svc health finds the server on its --port, and a CLI test send uses the server's delivery settings", async () => {
    const binary = await compiledBinary();
    const { pki, cert } = await testCertificates();
    const receiver = startReceiver(cert);
    const cwd = makeTempDir("svc-flags");
    try {
      await runBinary(binary, ["migrate"], cwd);
      // Not 8080: the CLI must learn the port from the running server.
      const server = await startBinary(binary, {
        cwd,
        args: ["--unsafe-allow-private-targets", "--delivery-ca-file", pki.caFile],
      });
      try {
        const health = await runBinary(binary, ["health", "--json"], cwd);
        expect(health.code).toBe(0);
        expect(JSON.parse(health.stdout).url).toBe(`${server.baseUrl}/healthz`);

        const account = JSON.parse(
          (
            await runBinary(
              binary,
              ["accounts", "create", "--email", "f@example.com", "--json"],
              cwd,
            )
          ).stdout,
        );
        const added = await runBinary(
          binary,
          ["endpoints", "add", "--account", account.id, "--url", receiver.url("/hook"), "--json"],
          cwd,
        );
        expect(added.stderr).toBe("");
        const endpointId = JSON.parse(added.stdout).endpoint.id;
        const tested = await runBinary(binary, ["endpoints", "test", endpointId, "--json"], cwd);
        expect(tested.stderr).toBe("");
        expect(JSON.parse(tested.stdout).status_code).toBe(200);
      } finally {
        await server.stop();
      }
      // Once the server stopped, its flags no longer apply.
      expect(existsSync(join(cwd, "data", "svc.running.json"))).toBe(false);
      const health = await runBinary(binary, ["health", "--json"], cwd);
      expect(JSON.parse(health.stdout).url).toBe("http://127.0.0.1:8080/healthz");
    } finally {
      await receiver.stop();
    }
  }, 90_000);
});
