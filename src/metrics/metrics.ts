// Prometheus metrics through prom-client, one Registry per Services (never the
// library's global default registry), so every test and every process builds its own.
//
// Two kinds of series:
// - counted in this process as things happen: HTTP requests, delivery attempts and their
//   latency, finished deliveries, disabled endpoints, sync runs. They start at 0 with the
//   process, which is what Prometheus' rate() and increase() expect of counters.
// - read from the database at scrape time (database-gauges.ts): pending and leased deliveries,
//   oldest pending age, endpoints by state, connections by status, unsent mail. They cover work
//   written by any process (the CLI included).
//
// Labels are bounded vocabularies only: route patterns, methods, status codes, outcomes and
// states. Never an id of a tenant, key, endpoint or connection, never a URL, never a secret.

import packageJson from "../../package.json" with { type: "json" };
import type { Clock } from "../core/clock.ts";
import type { AnyDatabase } from "../db/open.ts";
import { registerDatabaseGauges, registerPoolGauges } from "./database-gauges.ts";
import { registerHttpRequestMetrics } from "./http-requests.ts";
import { registerProcessMetrics } from "./process-metrics.ts";
import { Counter, Gauge, Histogram, Registry } from "./prom.ts";

const metricsPrefix = "svc_";

/** Latency buckets (seconds) for delivery attempts: the spec's 10-second limit is the last. */
const deliveryBuckets = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Latency buckets (seconds) for API requests, served from SQLite on the same host. */
const httpBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
const syncBuckets = [0.1, 0.5, 1, 5, 15, 30, 60, 120];

/** What the delivery-attempt counters need of an attempt (the sender's result has more). */
export interface DeliveryAttemptObservation {
  ok: boolean;
  /** Why a failed attempt failed (the sender's error classes); counted as "connect" when unknown. */
  errorClass: string | null;
  durationMs: number;
}

export type DeliveryDisposition = "succeeded" | "retry_scheduled" | "dropped";
export type SyncRunOutcome = "succeeded" | "failed";

export interface Metrics {
  readonly registry: Registry;
  /**
   * Counts HTTP requests of one method, route pattern and status: the labels are resolved once,
   * each call of the returned function records one request and its duration.
   */
  httpRequestObserver(method: string, route: string, status: number): (seconds: number) => void;
  /** One attempt of an account-event delivery by the dispatcher. */
  deliveryAttempt(result: DeliveryAttemptObservation): void;
  /** Deliveries whose attempt was recorded: succeeded, left to retry, or dropped. */
  deliveryFinished(disposition: DeliveryDisposition, count?: number): void;
  /** An endpoint disabled after 20 consecutive failures. */
  endpointDisabled(): void;
  /** A sync run that ran (not `busy` or `too_soon`). */
  syncRun(labels: { trigger: string; outcome: SyncRunOutcome }, durationSeconds: number): void;
  /** Rows or accounts of a provider's answer a sync skipped, by named reason (banking/skips.ts). */
  providerRowsSkipped(provider: string, reason: string, count: number): void;
}

export interface MetricsDeps {
  database: AnyDatabase;
  clock: Clock;
}

export function createMetrics(deps: MetricsDeps): Metrics {
  const registry = new Registry();
  const registers = [registry];
  const name = (suffix: string) => `${metricsPrefix}${suffix}`;

  const httpRequests = registerHttpRequestMetrics(
    registry,
    { requests: name("http_requests_total"), duration: name("http_request_duration_seconds") },
    httpBuckets,
  );
  const attempts = new Counter({
    name: name("webhook_delivery_attempts_total"),
    help: "Delivery attempts of account events, by result: succeeded, or the failure class (dns, blocked_address, connect, tls, timeout, redirect, http_status).",
    labelNames: ["result"] as const,
    registers,
  });
  const attemptDuration = new Histogram({
    name: name("webhook_delivery_attempt_duration_seconds"),
    help: "Duration of delivery attempts (resolve, connect, TLS, request, response status), by outcome.",
    labelNames: ["outcome"] as const,
    buckets: deliveryBuckets,
    registers,
  });
  const deliveries = new Counter({
    name: name("webhook_deliveries_total"),
    help: "Deliveries after an attempt, by outcome: succeeded, retry_scheduled, or dropped after the last retry.",
    labelNames: ["outcome"] as const,
    registers,
  });
  const disabled = new Counter({
    name: name("webhook_endpoints_disabled_total"),
    help: "Endpoints disabled after 20 consecutive failed deliveries.",
    registers,
  });
  const syncRuns = new Counter({
    name: name("sync_runs_total"),
    help: "Bank-data sync runs, by trigger (schedule, cli, portal) and outcome (succeeded, failed).",
    labelNames: ["trigger", "outcome"] as const,
    registers,
  });
  const syncDuration = new Histogram({
    name: name("sync_run_duration_seconds"),
    help: "Duration of bank-data sync runs, by outcome.",
    labelNames: ["outcome"] as const,
    buckets: syncBuckets,
    registers,
  });
  const skipped = new Counter({
    name: name("provider_rows_skipped_total"),
    help: "Accounts and transactions of real banks' answers that syncs left out, by provider and reason (docs/providers.md).",
    labelNames: ["provider", "reason"] as const,
    registers,
  });
  // Every label combination that alerts divide by starts at 0, so a rate exists before the
  // first failure.
  for (const outcome of ["succeeded", "retry_scheduled", "dropped"] as const) {
    deliveries.inc({ outcome }, 0);
  }
  attempts.inc({ result: "succeeded" }, 0);
  disabled.inc(0);

  new Gauge({
    name: name("build_info"),
    help: "Always 1; the version label names the running build.",
    labelNames: ["version"] as const,
    registers,
  }).set({ version: packageJson.version }, 1);
  registerProcessMetrics(registry, name);
  registerDatabaseGauges(registry, name, { db: deps.database.db, clock: deps.clock });
  registerPoolGauges(registry, name, deps.database);

  return {
    registry,
    httpRequestObserver(method, route, status) {
      return httpRequests.observer(method, route, status);
    },
    deliveryAttempt(result) {
      attempts.inc({ result: result.ok ? "succeeded" : (result.errorClass ?? "connect") });
      attemptDuration.observe(
        { outcome: result.ok ? "succeeded" : "failed" },
        result.durationMs / 1000,
      );
    },
    deliveryFinished(disposition, count = 1) {
      if (count > 0) deliveries.inc({ outcome: disposition }, count);
    },
    endpointDisabled() {
      disabled.inc();
    },
    syncRun(labels, durationSeconds) {
      syncRuns.inc(labels);
      syncDuration.observe({ outcome: labels.outcome }, durationSeconds);
    },
    providerRowsSkipped(provider, reason, count) {
      if (count > 0) skipped.inc({ provider, reason }, count);
    },
  };
}
