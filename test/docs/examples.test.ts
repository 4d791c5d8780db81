// The docs' examples are executed: every ```sh run block of docs/*.md runs with bash
// against the compiled binary serving real sandbox data, with a real API key, a real metrics
// token and a real webhook delivery captured by a loopback HTTPS receiver. Its exit status must
// be 0 and its output must match the block shown after it (test/support/doc-examples.ts).
// The binary's /metrics is scraped after those real deliveries and its values checked.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBase64Url } from "../../src/crypto/tokens.ts";
import { compiledBinary, runBinary, type StartedBinary, startBinary } from "../support/binary.ts";
import {
  compareOutput,
  type DocExample,
  extractExamples,
  type ShellRun,
  shellSession,
} from "../support/doc-examples.ts";
import { parsePrometheus, sampleValue } from "../support/prometheus.ts";
import { type Receiver, startReceiver } from "../support/receiver.ts";
import { makeTempDir } from "../support/temp.ts";
import { waitUntil } from "../support/wait.ts";
import { testCertificates } from "../support/webhooks.ts";

const docsDir = join(import.meta.dir, "../../docs");
const docFiles = readdirSync(docsDir).filter((name) => name.endsWith(".md"));
const examples: DocExample[] = docFiles.flatMap((name) =>
  extractExamples(readFileSync(join(docsDir, name), "utf8"), `docs/${name}`),
);

let server: StartedBinary;
let receiver: Receiver;
let session: ReturnType<typeof shellSession>;
let accountEvents = 0;
let metricsToken = "";

beforeAll(async () => {
  const binary = await compiledBinary();
  const { pki, cert } = await testCertificates();
  const cwd = makeTempDir("svc-docs");
  const env = { SVC_UNSAFE_ALLOW_PRIVATE_TARGETS: "true", SVC_DELIVERY_CA_FILE: pki.caFile };
  const tokenFile = join(cwd, "metrics-token");
  metricsToken = randomBase64Url(32);
  writeFileSync(tokenFile, `${metricsToken}\n`, { mode: 0o600 });
  receiver = startReceiver(cert);
  server = await startBinary(binary, { cwd, env, args: ["--metrics-token-file", tokenFile] });
  const svc = async <T>(...args: string[]): Promise<T> => {
    const run = await runBinary(binary, ["--json", ...args], cwd, env);
    if (run.code !== 0) throw new Error(`svc ${args.join(" ")} failed: ${run.stderr}`);
    return JSON.parse(run.stdout) as T;
  };

  const account = await svc<{ id: string }>("accounts", "create", "--email", "docs@example.com");
  const key = await svc<{ key: string }>("keys", "create", "--account", account.id);
  const endpoint = await svc<{ endpoint: { id: string }; signing_secret: string }>(
    "endpoints",
    "add",
    "--account",
    account.id,
    "--url",
    receiver.url("/svc-webhooks"),
  );
  await svc("endpoints", "send-code", endpoint.endpoint.id);
  const verify = receiver.requests.find((r) => JSON.parse(r.body).type === "webhook.verify");
  await svc(
    "endpoints",
    "verify",
    endpoint.endpoint.id,
    JSON.parse(verify?.body ?? "{}").data.code,
  );
  // Real bank data and real events: the sandbox bank, connected and synced by the CLI while the
  // server runs; the server's dispatcher delivers the events.
  await svc("sandbox", "connect", "--account", account.id, "--seed", "7");
  await svc("sync");
  const events = await svc<{ id: string; type: string }[]>(
    "events",
    "list",
    "--account",
    account.id,
  );
  accountEvents = events.filter((e) => !e.type.startsWith("webhook.")).length;
  const isAccountEvent = (body: string) => !JSON.parse(body).type.startsWith("webhook.");
  await waitUntil(
    () => receiver.requests.filter((r) => isAccountEvent(r.body)).length >= accountEvents,
    `${accountEvents} deliveries`,
  );

  // The verification example checks a delivery exactly as it was received.
  const delivery = receiver.requests.find((r) => isAccountEvent(r.body));
  const examplesDir = join(cwd, "examples");
  session = shellSession(examplesDir, {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: cwd,
    SVC_BASE_URL: server.baseUrl,
    SVC_API_KEY: key.key,
    SVC_METRICS_TOKEN_FILE: tokenFile,
    SVC_WEBHOOK_SECRET: endpoint.signing_secret,
    WEBHOOK_TIMESTAMP: delivery?.headers["svc-webhook-timestamp"] ?? "",
    WEBHOOK_SIGNATURE: delivery?.headers["svc-webhook-signature"] ?? "",
  });
  writeFileSync(join(examplesDir, "delivery-body.json"), delivery?.body ?? "");
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await receiver?.stop();
});

describe("the docs' examples run against a real server", () => {
  test("the docs hold executable examples (API guide, metrics, operator guide)", () => {
    const count = (file: string) => examples.filter((e) => e.file === file).length;
    expect(count("docs/api-guide.md")).toBeGreaterThanOrEqual(12);
    expect(count("docs/metrics.md")).toBeGreaterThanOrEqual(1);
    expect(count("docs/operator-guide.md")).toBeGreaterThanOrEqual(1);
  });

  for (const example of examples) {
    const firstLine = example.code.split("\n")[0]?.slice(0, 60);
    test(`${example.file}:${example.line} ${firstLine}`, async () => {
      const run: ShellRun = await session.run(example.code);
      const context = `\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;
      expect(run.exitCode, `exit status${context}`).toBe(0);
      if (example.output) {
        expect(compareOutput(example.output, run.stdout), `output${context}`).toEqual([]);
      }
    });
  }
});

describe("/metrics of the compiled binary after real deliveries", () => {
  test("prom-client works in the binary; delivery and request series carry the real values", async () => {
    const response = await fetch(`${server.baseUrl}/metrics`, {
      headers: { Authorization: `Bearer ${metricsToken}` },
    });
    expect(response.status).toBe(200);
    const samples = parsePrometheus(await response.text());
    expect(accountEvents).toBeGreaterThan(3);
    expect(sampleValue(samples, "svc_webhook_deliveries_total", { outcome: "succeeded" })).toBe(
      accountEvents,
    );
    expect(
      sampleValue(samples, "svc_webhook_delivery_attempts_total", { result: "succeeded" }),
    ).toBe(accountEvents);
    expect(
      sampleValue(samples, "svc_webhook_delivery_attempt_duration_seconds_count", {
        outcome: "succeeded",
      }),
    ).toBe(accountEvents);
    expect(
      sampleValue(samples, "svc_webhook_endpoints", { state: "active", verified: "true" }),
    ).toBe(1);
    expect(sampleValue(samples, "svc_connections", { status: "linked" })).toBe(1);
    // The examples above made these requests through the binary.
    expect(
      sampleValue(samples, "svc_http_requests_total", {
        method: "GET",
        route: "/v1/accounts",
        status: "401",
      }),
    ).toBeGreaterThanOrEqual(2);
    expect(sampleValue(samples, "svc_build_info", {})).toBe(1);
    // The binary's access log has a line per request, without keys.
    const logLines = server
      .stderr()
      .split("\n")
      .filter((line) => line.includes('"msg":"request"'));
    expect(logLines.length).toBeGreaterThan(10);
    expect(server.stderr()).not.toMatch(/svk_[A-Za-z0-9_-]{8}_[A-Za-z0-9_-]{43}/);
  });
});
