// CLI behaviour: usage errors exit 2; a test or verification send the receiver did not
// accept exits 1 and says why; only serve, setup and migrate create a data dir; setup run again
// adds no second operator; long work shows progress on a terminal and stays quiet without one.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../src/config/config.ts";
import { silentLogger } from "../../src/log/log.ts";
import { openServices } from "../../src/server/services.ts";
import { installedDir, runSvc } from "../support/cli.ts";
import { engineEnvFor, testEngine } from "../support/engine.ts";
import { acceptVerification, type Receiver, startReceiver } from "../support/receiver.ts";
import { makeTempDir } from "../support/temp.ts";
import { testCertificates } from "../support/webhooks.ts";

let refusing: Receiver;
let env: Record<string, string>;

beforeAll(async () => {
  const { pki, cert } = await testCertificates();
  refusing = startReceiver(cert, () => new Response("nope", { status: 500 }));
  env = { SVC_UNSAFE_ALLOW_PRIVATE_TARGETS: "true", SVC_DELIVERY_CA_FILE: pki.caFile };
});
afterAll(() => refusing.stop());

describe("usage errors exit 2", () => {
  test("an unknown command or option, a missing argument, extra arguments, a group without its subcommand", async () => {
    const cwd = await installedDir(makeTempDir());
    const cases: [string[], string][] = [
      [["nope"], "unknown command 'nope'"],
      [["keys", "list", "--account", "x", "--bogus"], "unknown option '--bogus'"],
      [["endpoints", "test"], "missing required argument 'id'"],
      [["keys", "list"], "required option '--account <id>' not specified"],
      [["sync", "extra"], "too many arguments"],
      [["endpoints"], "Usage: svc endpoints"],
      [["deliveries", "list", "--limit", "0"], "--limit must be a whole number"],
      [["endpoints", "update", "x", "--events", "bogus"], "Unknown event type bogus"],
    ];
    for (const [argv, message] of cases) {
      const run = await runSvc(argv, { cwd });
      expect(`${argv.join(" ")}: ${run.code}`).toBe(`${argv.join(" ")}: 2`);
      expect(run.stderr).toContain(message);
    }
    for (const argv of [["--help"], ["--version"], ["endpoints", "--help"], []]) {
      expect((await runSvc(argv, { cwd })).code).toBe(0);
    }
  });
});

describe("a send the receiver did not accept exits 1 and says why", () => {
  test("svc endpoints test and send-code against a receiver answering 500", async () => {
    const cwd = await installedDir(makeTempDir());
    const svc = (...argv: string[]) => runSvc(argv, { cwd, env });
    const account = (await svc("accounts", "create", "--email", "x@example.com", "--json")).json<{
      id: string;
    }>();
    const added = await svc(
      "endpoints",
      "add",
      "--account",
      account.id,
      "--url",
      refusing.url("/refuse"),
      "--json",
    );
    const id = added.json<{ endpoint: { id: string } }>().endpoint.id;
    const tested = await svc("endpoints", "test", id);
    expect(tested.code).toBe(1);
    expect(tested.stdout).toContain("webhook.test sent to endpoint");
    expect(tested.stderr).toBe(
      "error: the receiver did not accept the webhook.test (a 2xx within 10 s is needed): it answered HTTP 500\n",
    );
    const code = await svc("endpoints", "send-code", id, "--json");
    expect(code.code).toBe(1);
    expect(code.json<{ ok: boolean; status_code: number }>()).toMatchObject({
      ok: false,
      status_code: 500,
    });
    expect(code.stderr).toContain("did not accept the webhook.verify");

    refusing.respond(acceptVerification(() => new Response(null, { status: 204 })));
    try {
      expect((await svc("endpoints", "send-code", id)).code).toBe(0);
    } finally {
      refusing.respond(() => new Response("nope", { status: 500 }));
    }
  });
});

describe("only serve, setup and migrate create a data dir", () => {
  test("every other command where there is none fails with one line naming it and how to create it, and creates nothing", async () => {
    const cwd = makeTempDir();
    const commands = [
      ["accounts", "list"],
      ["accounts", "create", "--email", "a@example.com"],
      ["keys", "list", "--account", "00000000-0000-4000-8000-000000000000"],
      ["endpoints", "list", "--account", "00000000-0000-4000-8000-000000000000"],
      ["deliveries", "list"],
      ["events", "list", "--account", "00000000-0000-4000-8000-000000000000"],
      ["mail", "list"],
      ["sync"],
      ["backup", "snap"],
      [
        "import",
        "--account",
        "00000000-0000-4000-8000-000000000000",
        join(import.meta.dir, "../fixtures/import/valid.json"),
      ],
      ["--data-dir", "typo", "accounts", "list"],
    ];
    for (const argv of commands) {
      const run = await runSvc(argv, { cwd });
      expect(`${argv.join(" ")}: ${run.code}`).toBe(`${argv.join(" ")}: 78`);
      const dir = join(cwd, argv[0] === "--data-dir" ? "typo" : "data");
      expect(run.stderr).toStartWith(`error: no data dir at ${dir}`);
      expect(run.stderr).toContain("svc setup");
      expect(run.stderr.trim().split("\n")).toHaveLength(1);
    }
    expect(readdirSync(cwd)).toEqual([]);
    const migrated = await runSvc(["migrate"], { cwd });
    expect(migrated.code).toBe(0);
    expect(existsSync(join(cwd, "data"))).toBe(true);
    expect((await runSvc(["accounts", "list"], { cwd })).code).toBe(0);
  });

  test.if(testEngine === "postgres")(
    "with PostgreSQL and SVC_MASTER_KEY no data dir is needed, and none is made",
    async () => {
      const cwd = makeTempDir();
      const withKey = { SVC_MASTER_KEY: "cd".repeat(32) };
      const created = await runSvc(["accounts", "create", "--email", "pg@example.com"], {
        cwd,
        env: withKey,
      });
      expect(created.code).toBe(0);
      expect(readdirSync(cwd)).toEqual([]);
      const withoutKey = await runSvc(["accounts", "list"], { cwd });
      expect(withoutKey.code).toBe(78);
      expect(withoutKey.stderr).toContain("it holds the master key; or set SVC_MASTER_KEY");
    },
  );
});

describe("setup --yes run again", () => {
  test("does not create a second operator, with the same, another or the default e-mail", async () => {
    const cwd = makeTempDir();
    const setup = (...extra: string[]) =>
      runSvc(["setup", "--yes", "--base-url", "https://a.example.com", ...extra, "--json"], {
        cwd,
      });
    expect((await setup("--admin-email", "ops@example.com")).code).toBe(0);
    for (const extra of [
      ["--admin-email", "ops@example.com"],
      ["--admin-email", "other@example.com"],
      [],
    ]) {
      const again = await setup(...extra);
      expect(again.code).toBe(0);
      expect(again.json<{ operator: unknown }>().operator).toEqual({
        email: "ops@example.com",
        created: false,
      });
    }
    const services = await openServices(
      loadConfig({ env: await engineEnvFor(cwd), cwd, flags: { dataDir: join(cwd, "data") } }),
      { log: silentLogger },
    );
    try {
      const { users } = services.db.t;
      const operators = (await services.db.select().from(users)).filter((u) => u.isOperator);
      expect(operators.map((u) => u.email)).toEqual(["ops@example.com"]);
    } finally {
      await services.database.close();
    }
  });
});

describe("progress of long work", () => {
  test("import, backup and sync show progress on a terminal (stderr) and stay quiet without one", async () => {
    const cwd = await installedDir(makeTempDir());
    const account = (
      await runSvc(["accounts", "create", "--email", "p@example.com", "--json"], { cwd })
    ).json<{ id: string }>();
    await runSvc(["sandbox", "connect", "--account", account.id], { cwd });
    const valid = join(import.meta.dir, "../fixtures/import/valid.json");
    const work: [string[], RegExp][] = [
      [["import", "--account", account.id, valid], /imported \d+\/\d+ accounts/],
      [["sync"], /syncing connection 1\/\d+/],
      [["backup", join(cwd, "snap-tty")], /backup: writing the database snapshot/],
    ];
    for (const [argv, line] of work) {
      const tty = await runSvc(argv, { cwd, interactive: true });
      expect(tty.code).toBe(0);
      expect(tty.stderr).toMatch(line);
      expect(tty.stderr).toEndWith("\r\x1b[2K");
    }
    const quiet: string[][] = [
      ["import", "--account", account.id, valid],
      ["sync"],
      ["backup", join(cwd, "snap-quiet")],
    ];
    for (const argv of quiet) {
      const run = await runSvc(argv, { cwd, interactive: false, env: { SVC_LOG_LEVEL: "error" } });
      expect(run.code).toBe(0);
      expect(run.stderr).toBe("");
    }
  });
});
