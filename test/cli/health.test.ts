// `svc health` (the Dockerfile's HEALTHCHECK against /healthz, with the
// binary itself since the image has no curl).
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { localServerUrl } from "../../src/cli/health-probe.ts";
import { freePort } from "../support/binary.ts";
import { runSvc } from "../support/cli.ts";
import { startTestServer } from "../support/server.ts";
import { createTestServices } from "../support/services.ts";
import { makeTempDir } from "../support/temp.ts";

const services = await createTestServices();
const server = startTestServer(services);
afterAll(() => server.stop());
const port = new URL(server.baseUrl).port;

interface Probe {
  url: string;
  healthy: boolean;
  status_code: number | null;
  problem: string | null;
}

describe("svc health", () => {
  test("exits 0 when the server at --url answers /healthz", async () => {
    const run = await runSvc(["health", "--url", server.baseUrl, "--json"], { cwd: makeTempDir() });
    expect(run.code).toBe(0);
    expect(run.json<Probe>()).toEqual({
      url: `${server.baseUrl}/healthz`,
      healthy: true,
      status_code: 200,
      problem: null,
    });
  });

  test("--ready asks /readyz", async () => {
    const run = await runSvc(["health", "--ready", "--url", server.baseUrl, "--json"], {
      cwd: makeTempDir(),
    });
    expect(run.code).toBe(0);
    expect(run.json<Probe>().url).toBe(`${server.baseUrl}/readyz`);
  });

  test("without --url it asks where `svc serve` listens (SVC_HOST 0.0.0.0 is reached on loopback), with no data dir", async () => {
    const cwd = makeTempDir();
    const run = await runSvc(["health", "--json"], {
      cwd,
      env: { SVC_HOST: "0.0.0.0", SVC_PORT: port },
    });
    expect(run.code).toBe(0);
    expect(run.json<Probe>().url).toBe(`http://127.0.0.1:${port}/healthz`);
  });

  test("exits 1 and says why when nothing answers", async () => {
    const closed = await freePort();
    const run = await runSvc(["health", "--url", `http://127.0.0.1:${closed}`], {
      cwd: makeTempDir(),
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("cannot connect");
    expect(run.stderr).toContain("not healthy");
  });

  test("a bad --url or --timeout-ms is a usage error (exit 2)", async () => {
    const cwd = makeTempDir();
    expect((await runSvc(["health", "--url", "localhost:8080"], { cwd })).code).toBe(2);
    expect((await runSvc(["health", "--timeout-ms", "soon"], { cwd })).code).toBe(2);
  });

  test("the local URL follows the listen address and TLS", () => {
    expect(localServerUrl({ host: "0.0.0.0", port: 8080 })).toBe("http://127.0.0.1:8080");
    expect(localServerUrl({ host: "::", port: 8080 })).toBe("http://[::1]:8080");
    expect(localServerUrl({ host: "10.1.2.3", port: 443, tlsCertFile: "/c.pem" })).toBe(
      "https://10.1.2.3:443",
    );
  });
});

describe("Dockerfile", () => {
  test("has a HEALTHCHECK that runs `svc health` (the image has no curl)", () => {
    const dockerfile = readFileSync(join(import.meta.dir, "../../Dockerfile"), "utf8");
    expect(dockerfile).toMatch(
      /^HEALTHCHECK .*\\\n\s+CMD \["\/usr\/local\/bin\/svc", "health"\]$/m,
    );
  });
});
