// `svc dev` through the compiled binary: a developer's whole local loop with no certificate made
// by hand. The mode issues its CA and a localhost certificate, says loudly that it is not for
// production, and the receiver (serving that certificate on loopback, a port other than 443) is
// registered, verified, tested and resent to. A plain `svc serve` refuses the same URL and
// points to `svc dev` and `svc listen`.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  compiledBinary,
  freePort,
  runBinary,
  spawnCaptured,
  startBinary,
} from "../support/binary.ts";
import { engineEnvFor } from "../support/engine.ts";
import { startReceiver } from "../support/receiver.ts";
import { makeTempDir } from "../support/temp.ts";
import { waitUntil } from "../support/wait.ts";
import { lastVerificationCode, testCertificates } from "../support/webhooks.ts";

describe("svc dev", () => {
  test("a receiver on localhost with the printed certificate is registered, verified, tested and resent to", async () => {
    const binary = await compiledBinary();
    const cwd = makeTempDir("svc-dev");
    const port = await freePort();
    const engineEnv = await engineEnvFor(cwd);
    const dev = spawnCaptured([binary, "dev", "--port", String(port)], { cwd, env: engineEnv });
    const baseUrl = `http://127.0.0.1:${port}`;
    await waitUntil(
      async () => {
        if (dev.process.exitCode !== null) throw new Error(`svc dev exited:\n${dev.stderr()}`);
        return dev.stdout().includes("TLS_KEY_FILE=");
      },
      "svc dev to print its settings",
      20_000,
    );
    const svc = async (...args: string[]) => {
      const run = await runBinary(binary, [...args, "--json"], cwd, { SVC_LOG_LEVEL: "warn" });
      expect({ args, code: run.code, stderr: run.stderr }).toEqual({ args, code: 0, stderr: "" });
      return JSON.parse(run.stdout);
    };
    try {
      const out = dev.stdout();
      expect(out).toContain("DEVELOPMENT MODE: never run `svc dev` in production");
      const dataDir = join(cwd, "data");
      expect(out).toContain(`TLS_CERT_FILE=${join(dataDir, "dev-ca", "localhost.pem")}`);
      expect(out).toContain(`TLS_KEY_FILE=${join(dataDir, "dev-ca", "localhost-key.pem")}`);
      expect(out).toContain(`SVC_API_BASE=http://localhost:${port}/v1`);
      expect(dev.stderr()).toContain("unsafeAllowPrivateTargets is on");
      expect((await fetch(`${baseUrl}/readyz`)).status).toBe(200);

      // The receiver serves the certificate svc dev issued; nothing else is trusted.
      const receiver = startReceiver({
        certFile: join(dataDir, "dev-ca", "localhost.pem"),
        keyFile: join(dataDir, "dev-ca", "localhost-key.pem"),
      });
      try {
        const url = `https://localhost:${receiver.port}/webhooks`;
        const account = await svc("accounts", "create", "--email", "dev@example.com");
        const { endpoint } = await svc("endpoints", "add", "--account", account.id, "--url", url);
        const sent = await svc("endpoints", "send-code", endpoint.id);
        expect(sent.status_code).toBe(200);
        await svc("endpoints", "verify", endpoint.id, lastVerificationCode(receiver));
        const tested = await svc("endpoints", "test", endpoint.id);
        expect(tested.status_code).toBe(200);

        // An account event, delivered by the running dev server, then resent.
        const connection = await svc("sandbox", "connect", "--account", account.id);
        // Each account event type on demand (Simulate activity), delivered by the dev server.
        for (const kind of ["transactions", "booking", "balance", "status"]) {
          const simulated = await svc("sandbox", "trigger", kind, "--connection", connection.id);
          expect(simulated.expected_events.length).toBeGreaterThan(0);
        }
        const typesReceived = () =>
          new Set(receiver.requests.map((r) => JSON.parse(r.body).type as string));
        await waitUntil(
          () =>
            [
              "account.transactions.available",
              "account.balance.updated",
              "connection.status.changed",
            ].every((type) => typesReceived().has(type)),
          "every account event type at the receiver",
          30_000,
        ).catch((error) => {
          throw new Error(`${error.message}; received ${[...typesReceived()].join(", ")}`);
        });
        const isStatusEvent = (body: string) =>
          JSON.parse(body).type === "connection.status.changed";
        await waitUntil(
          () => receiver.requests.some((r) => isStatusEvent(r.body)),
          "a connection.status.changed delivery",
        );
        const event = JSON.parse(
          receiver.requests.find((r) => isStatusEvent(r.body))?.body ?? "{}",
        );
        await svc("endpoints", "resend", endpoint.id, event.id);
        await waitUntil(
          () => receiver.requests.filter((r) => JSON.parse(r.body).id === event.id).length >= 2,
          "the resent delivery",
        );
      } finally {
        await receiver.stop();
      }
    } finally {
      dev.process.kill("SIGTERM");
      expect(await dev.process.exited).toBe(0);
    }

    // The CA is kept: a second start does not replace what the receiver trusts.
    const caPem = readFileSync(join(cwd, "data", "dev-ca", "ca.pem"), "utf8");
    const again = spawnCaptured([binary, "dev", "--port", String(port)], {
      cwd,
      env: engineEnv,
    });
    await waitUntil(() => again.stdout().includes("TLS_KEY_FILE="), "the second start", 20_000);
    again.process.kill("SIGTERM");
    await again.process.exited;
    expect(readFileSync(join(cwd, "data", "dev-ca", "ca.pem"), "utf8")).toBe(caPem);

    // Without dev mode the same kind of URL is refused, and the refusal says what to use.
    const server = await startBinary(binary, { cwd });
    try {
      const account = await svc("accounts", "create", "--email", "prod@example.com");
      const refused = await runBinary(
        binary,
        ["endpoints", "add", "--account", account.id, "--url", "https://localhost:3000/webhooks"],
        cwd,
      );
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain("svc dev");
      expect(refused.stderr).toContain("svc listen");
    } finally {
      await server.stop();
    }
  }, 120_000);

  test("a deliveryCaFile of the developer's own stays trusted beside the local CA", async () => {
    const binary = await compiledBinary();
    const { pki, cert } = await testCertificates();
    const receiver = startReceiver(cert);
    const cwd = makeTempDir("svc-dev-ca");
    const port = await freePort();
    const env = { ...(await engineEnvFor(cwd)), SVC_DELIVERY_CA_FILE: pki.caFile };
    const dev = spawnCaptured([binary, "dev", "--port", String(port)], { cwd, env });
    try {
      await waitUntil(() => dev.stdout().includes("TLS_KEY_FILE="), "svc dev to start", 20_000);
      const svc = async (...args: string[]) => {
        const run = await runBinary(binary, [...args, "--json"], cwd, { SVC_LOG_LEVEL: "warn" });
        expect({ args, code: run.code, stderr: run.stderr }).toEqual({ args, code: 0, stderr: "" });
        return JSON.parse(run.stdout);
      };
      const account = await svc("accounts", "create", "--email", "own-ca@example.com");
      const url = receiver.url("/own-ca");
      const { endpoint } = await svc("endpoints", "add", "--account", account.id, "--url", url);
      expect((await svc("endpoints", "test", endpoint.id)).status_code).toBe(200);
    } finally {
      dev.process.kill("SIGTERM");
      await dev.process.exited;
      await receiver.stop();
    }
  }, 90_000);
});
