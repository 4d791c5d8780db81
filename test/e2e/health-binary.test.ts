// The Dockerfile's HEALTHCHECK command, run as written with the compiled binary in place of
// /usr/local/bin/svc and the image's SVC_HOST/SVC_PORT: healthy while `svc serve` runs, not after.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { compiledBinary, runBinary, startBinary } from "../support/binary.ts";
import { makeTempDir } from "../support/temp.ts";

test("the image's HEALTHCHECK exits 0 against a running server and 1 once it has stopped", async () => {
  const binary = await compiledBinary();
  const dockerfile = readFileSync(join(import.meta.dir, "../../Dockerfile"), "utf8");
  const argv = JSON.parse(
    /^HEALTHCHECK [^\n]*\\\n\s+CMD (\[.*\])$/m.exec(dockerfile)?.[1] ?? "[]",
  ) as string[];
  expect(argv[0]).toBe("/usr/local/bin/svc");
  const cwd = makeTempDir("svc-health");
  const server = await startBinary(binary, { cwd });
  const port = new URL(server.baseUrl).port;
  const check = () =>
    runBinary(binary, argv.slice(1), makeTempDir(), { SVC_HOST: "0.0.0.0", SVC_PORT: port });
  let stopped = false;
  try {
    const alive = await check();
    expect({ code: alive.code, stderr: alive.stderr }).toEqual({ code: 0, stderr: "" });
    expect(
      (await runBinary(binary, ["health", "--ready", "--url", server.baseUrl], cwd)).code,
    ).toBe(0);
    expect(await server.stop()).toBe(0);
    stopped = true;
    expect((await check()).code).toBe(1);
  } finally {
    if (!stopped) await server.stop();
  }
}, 60_000);
