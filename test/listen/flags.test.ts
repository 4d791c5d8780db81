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

describe("svc listen flags", () => {
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

  test("a plain http:// --api-url to another machine exits 2 before the key is sent; loopback and https pass the check", async () => {
    const target = ["--api-key-file", keyFile, "--forward-to", "http://127.0.0.1:2/"];
    for (const apiUrl of [
      "http://svc.example.com",
      "http://10.0.0.5:8080",
      "http://[2001:db8::1]",
    ]) {
      const run = await runSvc(["listen", "--api-url", apiUrl, ...target], { cwd, env });
      expect({ apiUrl, code: run.code }).toEqual({ apiUrl, code: 2 });
      expect(run.stderr).toContain("--api-url must be https://");
    }
    // These get past the flags: the connection then fails (nothing listens there), which listen
    // retries until the stop signal; exit 0.
    for (const apiUrl of ["http://localhost:1", "http://[::1]:1", "https://svc.example.invalid"]) {
      const run = await runSvc(["listen", "--api-url", apiUrl, ...target], {
        cwd,
        env,
        stopAfterMs: 300,
      });
      expect({ apiUrl, code: run.code }).toEqual({ apiUrl, code: 0 });
      expect(run.stderr).toContain("Signing secret");
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
