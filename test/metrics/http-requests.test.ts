// The HTTP request series are tallied by the service itself (src/metrics/http-requests.ts) and
// must render exactly what prom-client's own Counter and Histogram give for the same requests.
import { describe, expect, test } from "bun:test";
import { Counter, Histogram, Registry } from "prom-client";
import { registerHttpRequestMetrics } from "../../src/metrics/http-requests.ts";
import { parsePrometheus, type Sample } from "../support/prometheus.ts";

const buckets = [0.001, 0.005, 0.025, 0.1];
const requests: [string, string, number, number][] = [
  ["GET", "/v1/accounts", 200, 0.0004],
  ["GET", "/v1/accounts", 200, 0.001], // on a bound: counted in that bucket (le)
  ["GET", "/v1/accounts", 401, 0.003],
  ["GET", "/v1/accounts/:account_id/transactions", 200, 0.02],
  ["POST", "/portal/api/keys", 201, 0.5], // beyond the last bound: +Inf only
];

function sorted(samples: Sample[]): string[] {
  return samples
    .map((s) => {
      const labels = Object.keys(s.labels)
        .sort()
        .map((k) => `${k}=${s.labels[k]}`)
        .join(",");
      // Sums are floating point: compare them to 9 digits.
      return `${s.name}{${labels}} ${s.name.endsWith("_sum") ? s.value.toFixed(9) : s.value}`;
    })
    .sort();
}

describe("HTTP request metrics", () => {
  test("render the same series as prom-client's Counter and Histogram for the same requests", async () => {
    const ours = new Registry();
    const tally = registerHttpRequestMetrics(
      ours,
      { requests: "t_http_requests_total", duration: "t_http_request_duration_seconds" },
      buckets,
    );
    const reference = new Registry();
    const counter = new Counter({
      name: "t_http_requests_total",
      help: "HTTP requests answered, by method, route pattern and status code.",
      labelNames: ["method", "route", "status"],
      registers: [reference],
    });
    const histogram = new Histogram({
      name: "t_http_request_duration_seconds",
      help: "Time from receiving a request to its response, by method and route pattern.",
      labelNames: ["method", "route"],
      buckets,
      registers: [reference],
    });
    for (const [method, route, status, seconds] of requests) {
      tally.observer(method, route, status)(seconds);
      counter.inc({ method, route, status: String(status) });
      histogram.observe({ method, route }, seconds);
    }
    const ourText = await ours.metrics();
    const referenceText = await reference.metrics();
    expect(sorted(parsePrometheus(ourText))).toEqual(sorted(parsePrometheus(referenceText)));
    // The same HELP and TYPE lines too.
    const meta = (text: string) => text.split("\n").filter((line) => line.startsWith("# "));
    expect(meta(ourText).sort()).toEqual(meta(referenceText).sort());
  });

  test("a registry without requests renders both metrics with no samples, even with observers made", async () => {
    const registry = new Registry();
    const tally = registerHttpRequestMetrics(
      registry,
      { requests: "a_total", duration: "b_seconds" },
      buckets,
    );
    tally.observer("GET", "/v1/accounts", 200);
    const text = await registry.metrics();
    expect(text).toContain("# TYPE a_total counter");
    expect(text).toContain("# TYPE b_seconds histogram");
    expect(parsePrometheus(text)).toEqual([]);
  });
});
