// The PostgreSQL URL's password never leaves the process: not in a log line, not in a command's
// output, not in --help. (PostgreSQL run only: the test server trusts loopback, so any password
// is accepted, and a real connection is made with it.)
import { describe, expect, test } from "bun:test";
import { runSvc } from "../support/cli.ts";
import { createTestDatabase, testEngine } from "../support/engine.ts";
import { makeTempDir } from "../support/temp.ts";

const password = "pw-never-shown-7f3a";

describe.if(testEngine === "postgres")("the database URL's password", () => {
  test("is in no log line and no output of migrate, accounts create, backup or --help", async () => {
    const cwd = makeTempDir("svc-url");
    const url = new URL((await createTestDatabase()).url);
    url.password = password;
    const env = { SVC_DATABASE_URL: url.toString(), SVC_LOG_LEVEL: "debug" };
    const runs = [
      await runSvc(["migrate", "--json"], { cwd, env }),
      await runSvc(["migrate"], { cwd, env }),
      await runSvc(["accounts", "create", "--email", "url@example.com"], { cwd, env }),
      await runSvc(["serve", "--help"], { cwd, env }),
      await runSvc(["db", "copy", "--to", url.toString()], { cwd, env }),
    ];
    for (const run of runs) {
      expect(`${run.stdout}${run.stderr}`).not.toContain(password);
    }
    expect(runs[0]?.code).toBe(0);
    expect(runs[1]?.stdout).toContain(":***@");
  });
});
