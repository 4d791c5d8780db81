// /metrics: protected by a bearer token from metricsTokenFile, Prometheus text format
// from a per-app registry, and series whose values follow real deliveries, real API requests and
// real syncs. Labels never carry an id.
import { describe, expect, test } from "bun:test";
import { connectSandbox, setSandboxStatus } from "../../src/banking/sandbox/connect.ts";
import { syncConnection } from "../../src/banking/sync.ts";
import { type Config, ConfigError } from "../../src/config/config.ts";
import { createApiKey } from "../../src/keys/api-keys.ts";
import { createApp } from "../../src/server/app.ts";
import { startService } from "../../src/server/runtime.ts";
import type { Services } from "../../src/server/services.ts";
import { recordAccountEvent } from "../../src/webhooks/events/write.ts";
import { addVerifiedEndpoint, insertServiceAccount } from "../banking/helpers.ts";
import { createFakeClock } from "../support/fake-clock.ts";
import { parsePrometheus, type Sample, sampleValue } from "../support/prometheus.ts";
import { acceptVerification, startReceiver } from "../support/receiver.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { createTestServices } from "../support/services.ts";
import { cleanupAfterEach } from "../support/smtp.ts";
import { writeTokenFile } from "../support/token-file.ts";
import { waitUntil } from "../support/wait.ts";
import {
  createWebhookSetup,
  raiseBalanceEvent,
  registerVerified,
  testCertificates,
} from "../support/webhooks.ts";

const cleanup = cleanupAfterEach();

async function scrape(
  baseUrl: string,
  token: string,
): Promise<{ text: string; samples: Sample[] }> {
  const response = await fetch(`${baseUrl}/metrics`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  expect(response.status).toBe(200);
  const text = await response.text();
  return { text, samples: parsePrometheus(text) };
}

/** Fresh services and a real HTTP server, both closed after the test. */
async function serve(
  config: Partial<Config> = {},
): Promise<{ services: Services; server: TestServer }> {
  const services = await createTestServices({ config });
  const server = startTestServer(services);
  cleanup(async () => {
    await server.stop();
    await services.database.close();
  });
  return { services, server };
}

/** Scrapes the registry directly (no HTTP), for gauges read from the database. */
async function registrySamples(services: Services): Promise<Sample[]> {
  return parsePrometheus(await services.metrics.registry.metrics());
}

describe("/metrics access", () => {
  test("without metricsTokenFile /metrics does not exist (404 not_found)", async () => {
    const { server } = await serve();
    const response = await fetch(`${server.baseUrl}/metrics`);
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("not_found");
  });

  test("with metricsTokenFile: no token or a wrong one is 401, the right one gets the text format", async () => {
    const file = writeTokenFile();
    const { server } = await serve({ metricsTokenFile: file.path });
    const attempts: Record<string, string>[] = [
      {},
      { Authorization: `Bearer ${file.token}x` },
      { Authorization: file.token },
    ];
    for (const headers of attempts) {
      const response = await fetch(`${server.baseUrl}/metrics`, { headers });
      expect(response.status).toBe(401);
      expect(response.headers.get("WWW-Authenticate")).toContain("Bearer");
    }
    const response = await fetch(`${server.baseUrl}/metrics`, {
      headers: { Authorization: `Bearer ${file.token}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect(response.headers.get("Cache-Control")).toBe("no-store");
    const samples = parsePrometheus(await response.text());
    expect(sampleValue(samples, "svc_build_info")).toBe(1);
    expect(sampleValue(samples, "svc_process_resident_memory_bytes")).toBeGreaterThan(1_000_000);
  });

  test("a token file holding a short token stops start-up with a config error", async () => {
    const file = writeTokenFile("too-short");
    const services = await createTestServices({ config: { metricsTokenFile: file.path } });
    cleanup(() => services.database.close());
    expect(() => createApp(services)).toThrow(ConfigError);
    expect(() => createApp(services)).toThrow(/at least 32 characters/);
  });

  test("a start refused for a bad token file creates no first operator, so its one-time password is not lost", async () => {
    const file = writeTokenFile("too-short");
    const services = await createTestServices({
      config: { metricsTokenFile: file.path, host: "127.0.0.1", port: 0 },
    });
    cleanup(() => services.database.close());
    await expect(startService(services)).rejects.toThrow(ConfigError);
    expect(await services.db.$count(services.db.t.users)).toBe(0);
  });

  test("two apps in one process keep separate registries (no global default registry)", async () => {
    const a = await createTestServices();
    const b = await createTestServices();
    cleanup(async () => {
      await a.database.close();
      await b.database.close();
    });
    await createApp(a).request("/healthz");
    await createApp(a).request("/healthz");
    await createApp(b).request("/healthz");
    const route = { method: "GET", route: "/healthz", status: "200" };
    expect(sampleValue(await registrySamples(a), "svc_http_requests_total", route)).toBe(2);
    expect(sampleValue(await registrySamples(b), "svc_http_requests_total", route)).toBe(1);
  });
});

describe("delivery series after real deliveries through startService", () => {
  test("attempts by result, latency histogram, deliveries by outcome, pending by state and endpoints by state", async () => {
    let status = 200;
    const receiver = startReceiver(
      (await testCertificates()).cert,
      acceptVerification(() => new Response(null, { status })),
    );
    cleanup(() => receiver.stop());
    const file = writeTokenFile();
    const setup = await createWebhookSetup({
      config: { metricsTokenFile: file.path, host: "127.0.0.1", port: 0 },
    });
    cleanup(() => setup.close());
    const { endpoint } = await registerVerified(setup, receiver);
    const running = await startService(setup.services);
    cleanup(() => running.stop());
    const baseUrl = running.url.toString().replace(/\/$/, "");
    const metrics = () => scrape(baseUrl, file.token);
    const delivered = async (outcome: string) =>
      sampleValue((await metrics()).samples, "svc_webhook_deliveries_total", { outcome });

    const events = [raiseBalanceEvent(setup), raiseBalanceEvent(setup)];
    setup.services.outbox.notify();
    await waitUntil(async () => (await delivered("succeeded")) === 2, "two successful deliveries");

    status = 503;
    events.push(raiseBalanceEvent(setup));
    setup.services.outbox.notify();
    await waitUntil(async () => (await delivered("retry_scheduled")) === 1, "a scheduled retry");

    setup.clock.advance(30_000);
    let { samples, text } = await metrics();
    expect(
      sampleValue(samples, "svc_webhook_delivery_attempts_total", { result: "succeeded" }),
    ).toBe(2);
    expect(
      sampleValue(samples, "svc_webhook_delivery_attempts_total", { result: "http_status" }),
    ).toBe(1);
    expect(
      sampleValue(samples, "svc_webhook_delivery_attempt_duration_seconds_count", {
        outcome: "succeeded",
      }),
    ).toBe(2);
    expect(
      sampleValue(samples, "svc_webhook_delivery_attempt_duration_seconds_count", {
        outcome: "failed",
      }),
    ).toBe(1);
    // Every attempt on loopback ends well inside the spec's 10 seconds: all in the last bucket.
    expect(
      sampleValue(samples, "svc_webhook_delivery_attempt_duration_seconds_bucket", {
        outcome: "succeeded",
        le: "10",
      }),
    ).toBe(2);
    expect(sampleValue(samples, "svc_webhook_deliveries_total", { outcome: "dropped" })).toBe(0);
    expect(
      sampleValue(samples, "svc_webhook_deliveries_pending", { state: "retry_scheduled" }),
    ).toBe(1);
    expect(sampleValue(samples, "svc_webhook_deliveries_pending", { state: "due" })).toBe(0);
    expect(sampleValue(samples, "svc_webhook_deliveries_pending", { state: "leased" })).toBe(0);
    expect(sampleValue(samples, "svc_webhook_oldest_pending_delivery_age_seconds")).toBe(30);
    expect(sampleValue(samples, "svc_webhook_oldest_due_delivery_age_seconds")).toBe(0);
    expect(
      sampleValue(samples, "svc_webhook_endpoints", { state: "active", verified: "true" }),
    ).toBe(1);
    expect(
      sampleValue(samples, "svc_webhook_endpoints", { state: "disabled", verified: "true" }),
    ).toBe(0);
    // Labels are vocabularies, never ids or URLs.
    for (const id of [
      setup.accountId,
      endpoint.id,
      ...(await Promise.all(events)).map((e) => e.eventId),
    ]) {
      expect(text).not.toContain(id);
    }
    expect(text).not.toContain(String(receiver.port));

    // The retry, a minute after the failed attempt (spec 6), succeeds.
    status = 200;
    setup.clock.advance(31_000);
    setup.services.outbox.notify();
    await waitUntil(async () => (await delivered("succeeded")) === 3, "the retry to succeed");
    ({ samples } = await metrics());
    expect(
      sampleValue(samples, "svc_webhook_delivery_attempts_total", { result: "succeeded" }),
    ).toBe(3);
    expect(
      sampleValue(samples, "svc_webhook_deliveries_pending", { state: "retry_scheduled" }),
    ).toBe(0);
    expect(sampleValue(samples, "svc_webhook_oldest_pending_delivery_age_seconds")).toBe(0);

    // 20 failures in a row disable the endpoint (spec 3).
    status = 500;
    for (let i = 0; i < 20; i++) await raiseBalanceEvent(setup);
    setup.services.outbox.notify();
    await waitUntil(
      async () =>
        sampleValue((await metrics()).samples, "svc_webhook_endpoints_disabled_total") === 1,
      "the endpoint to be disabled",
    );
    ({ samples } = await metrics());
    expect(
      sampleValue(samples, "svc_webhook_endpoints", { state: "disabled", verified: "true" }),
    ).toBe(1);
    expect(
      sampleValue(samples, "svc_webhook_endpoints", { state: "active", verified: "true" }),
    ).toBe(0);
    expect(
      sampleValue(samples, "svc_webhook_delivery_attempts_total", { result: "http_status" }),
    ).toBe(21);
    expect(
      sampleValue(samples, "svc_webhook_deliveries_pending", { state: "retry_scheduled" }),
    ).toBe(0);
    expect(sampleValue(samples, "svc_mail_unsent", { state: "waiting" })).toBe(1);
  });

  test("due deliveries and the dispatcher's lag are read from the database at scrape time", async () => {
    const clock = createFakeClock();
    const services = await createTestServices({ clock });
    cleanup(() => services.database.close());
    const accountId = await insertServiceAccount(services);
    await addVerifiedEndpoint(services, accountId);
    await addVerifiedEndpoint(services, accountId);
    // Written by another process (e.g. `svc import`) while nothing sends: due at once.
    await raiseEventFor(services, accountId);
    clock.advance(45_000);
    const samples = await registrySamples(services);
    expect(sampleValue(samples, "svc_webhook_deliveries_pending", { state: "due" })).toBe(2);
    expect(sampleValue(samples, "svc_webhook_oldest_due_delivery_age_seconds")).toBe(45);
    expect(sampleValue(samples, "svc_webhook_oldest_pending_delivery_age_seconds")).toBe(45);
    expect(
      sampleValue(samples, "svc_webhook_endpoints", { state: "active", verified: "true" }),
    ).toBe(2);
  });
});

async function raiseEventFor(services: Services, serviceAccountId: string) {
  return services.db.write((tx) =>
    recordAccountEvent(tx, services.clock, {
      serviceAccountId,
      type: "account.balance.updated",
      data: {
        account_id: "5b0c1f7e-8f2a-4d59-9a51-0d6f3c2b1a90",
        fetched_at: services.clock.now().toISOString(),
      },
    }),
  );
}

describe("API request and sync series", () => {
  test("requests are counted by route pattern and status, never by raw path", async () => {
    const file = writeTokenFile();
    const { services, server } = await serve({ metricsTokenFile: file.path });
    const accountId = await insertServiceAccount(services);
    const { key } = await createApiKey(services.db, services.clock, {
      serviceAccountId: accountId,
    });
    const get = (path: string, bearer?: string) =>
      fetch(`${server.baseUrl}${path}`, {
        headers: bearer ? { Authorization: `Bearer ${bearer}` } : {},
      });
    const unknownId = "0d4b7a52-3f5c-4c1e-8f8e-2a4c6b8d0e1f";
    expect((await get("/v1/accounts", key)).status).toBe(200);
    expect((await get("/v1/accounts?limit=5", key)).status).toBe(200);
    expect((await get("/v1/accounts")).status).toBe(401);
    expect((await get(`/v1/accounts/${unknownId}`, key)).status).toBe(404);
    expect((await get(`/v1/accounts/${unknownId}/nothing-here`, key)).status).toBe(404);
    const { text, samples } = await scrape(server.baseUrl, file.token);
    const requests = (route: string, status: string) =>
      sampleValue(samples, "svc_http_requests_total", { method: "GET", route, status });
    expect(requests("/v1/accounts", "200")).toBe(2);
    expect(requests("/v1/accounts", "401")).toBe(1);
    expect(requests("/v1/accounts/:account_id", "404")).toBe(1);
    expect(requests("unmatched", "404")).toBe(1);
    expect(
      sampleValue(samples, "svc_http_request_duration_seconds_count", {
        method: "GET",
        route: "/v1/accounts",
      }),
    ).toBe(3);
    expect(text).not.toContain(unknownId);
    expect(text).not.toContain(accountId);
    expect(text).not.toContain("limit=5");
  });

  test("sync runs are counted by trigger and outcome; connections by status", async () => {
    const clock = createFakeClock();
    const services = await createTestServices({ clock });
    cleanup(() => services.database.close());
    const accountId = await insertServiceAccount(services);
    const connection = await connectSandbox(services, { serviceAccountId: accountId, seed: 7 });
    const sync = () => syncConnection(services, connection.id, { trigger: "cli", force: true });
    expect((await sync()).outcome).toBe("succeeded");
    await setSandboxStatus(services, connection.id, "error", "bank down");
    expect((await sync()).outcome).toBe("failed");
    expect((await sync()).outcome).toBe("failed");
    const samples = await registrySamples(services);
    const runs = (outcome: string) =>
      sampleValue(samples, "svc_sync_runs_total", { trigger: "cli", outcome });
    expect(runs("succeeded")).toBe(1);
    expect(runs("failed")).toBe(2);
    expect(sampleValue(samples, "svc_sync_run_duration_seconds_count", { outcome: "failed" })).toBe(
      2,
    );
    expect(sampleValue(samples, "svc_connections", { status: "error" })).toBe(1);
    expect(sampleValue(samples, "svc_connections", { status: "linked" })).toBe(0);
  });
});

describe("database pool series", () => {
  test("show how many connections the process may open and how many are open, as the engine reports them", async () => {
    const services = await createTestServices();
    cleanup(() => services.database.close());
    const samples = await registrySamples(services);
    const size = sampleValue(samples, "svc_database_pool_size");
    const active = sampleValue(samples, "svc_database_pool_connections", { state: "active" });
    if (services.database.engine === "postgres") {
      expect(size).toBe(services.database.poolSize);
      // The scrape's own query at least.
      expect(active).toBeGreaterThanOrEqual(1);
    } else {
      expect(size).toBe(2);
      expect(sampleValue(samples, "svc_database_pool_connections", { state: "idle" })).toBe(2);
    }
  });
});
