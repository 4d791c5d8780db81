import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runSvc } from "../support/cli.ts";
import { makeTempDir } from "../support/temp.ts";

const cwd = makeTempDir();
const keyFile = join(cwd, "key.txt");
writeFileSync(keyFile, `svk_abcdefgh_${"a".repeat(43)}\n`);
const env = { SVC_LISTEN_SECRET_FILE: join(cwd, "secret") };
const base = ["listen", "--api-url", "http://127.0.0.1:1"];

describe("svc listen flags (issue 18)", () => {
  test("a --forward-to that is not an http(s) URL exits 2", async () => {
    for (const target of ["not a url", "ftp://127.0.0.1/x", "http://u:p@127.0.0.1/"]) {
      const run = await runSvc([...base, "--api-key-file", keyFile, "--forward-to", target], {
        cwd,
        env,
      });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("--forward-to");
    }
  });

  test("a missing --api-key-file exits 2, as does an unreadable one", async () => {
    const missing = await runSvc([...base, "--forward-to", "http://127.0.0.1:2/"], { cwd, env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--api-key-file");
    const unreadable = await runSvc(
      [...base, "--api-key-file", join(cwd, "nope"), "--forward-to", "http://127.0.0.1:2/"],
      { cwd, env },
    );
    expect(unreadable.code).toBe(2);
  });

  test("an unknown --events type exits 2 and names the known ones", async () => {
    const run = await runSvc(
      [
        ...base,
        "--api-key-file",
        keyFile,
        "--forward-to",
        "http://127.0.0.1:2/",
        "--events",
        "nope",
      ],
      { cwd, env },
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--events");
  });

  test("a key file that holds no API key exits 1", async () => {
    const bad = join(cwd, "bad.txt");
    writeFileSync(bad, "hello\n");
    const run = await runSvc(
      [...base, "--api-key-file", bad, "--forward-to", "http://127.0.0.1:2/"],
      { cwd, env },
    );
    expect(run.code).toBe(1);
  });
});
