// The HTTP request metrics: svc_http_requests_total (method, route, status) and
// svc_http_request_duration_seconds (method, route). Counted on every request, so they are
// tallied in plain maps keyed by their label values and rendered only when Prometheus scrapes:
// prom-client's Counter and Histogram hash their label object on every call (~0.7 µs a request,
// the largest single cost of a cached /v1 answer; BENCHMARKS.md). The rendered series are the
// ones a prom-client Counter and Histogram would give.
import type { Metric, MetricObjectWithValues, MetricValue, Registry } from "prom-client";

/** A sample, and which series of the metric it belongs to (`_bucket`, `_sum`, `_count`). */
type Sample = MetricValue<string> & { metricName?: string };

export interface HttpRequestMetrics {
  /** The tallies of one method, route and status, for callers that record many such requests. */
  observer(method: string, route: string, status: number): (durationSeconds: number) => void;
}

interface CountTally {
  labels: { method: string; route: string; status: string };
  count: number;
}

interface DurationTally {
  labels: { method: string; route: string };
  /** Observations per bucket (not cumulative); the last slot is +Inf. */
  buckets: number[];
  sum: number;
  count: number;
}

export function registerHttpRequestMetrics(
  registry: Registry,
  names: { requests: string; duration: string },
  bucketBounds: readonly number[],
): HttpRequestMetrics {
  // Label values are bounded vocabularies (route patterns, methods, status codes).
  const counts = new Map<string, CountTally>();
  const durations = new Map<string, DurationTally>();

  registerCustomMetric(registry, {
    name: names.requests,
    help: "HTTP requests answered, by method, route pattern and status code.",
    type: "counter",
    values: () =>
      [...counts.values()]
        .filter(({ count }) => count > 0)
        .map(({ labels, count }) => ({ labels, value: count })),
  });
  registerCustomMetric(registry, {
    name: names.duration,
    help: "Time from receiving a request to its response, by method and route pattern.",
    type: "histogram",
    values: () => {
      const values: Sample[] = [];
      for (const tally of durations.values()) {
        // An observer made for a request not recorded yet has nothing to show.
        if (tally.count === 0) continue;
        let cumulative = 0;
        bucketBounds.forEach((bound, i) => {
          cumulative += tally.buckets[i] as number;
          values.push(bucketSample(names.duration, tally, bound, cumulative));
        });
        values.push(bucketSample(names.duration, tally, "+Inf", tally.count));
        values.push({
          metricName: `${names.duration}_sum`,
          labels: tally.labels,
          value: tally.sum,
        });
        values.push({
          metricName: `${names.duration}_count`,
          labels: tally.labels,
          value: tally.count,
        });
      }
      return values;
    },
  });

  return {
    observer(method, route, status) {
      const countKey = `${method} ${route} ${status}`;
      let count = counts.get(countKey);
      if (!count) {
        count = { labels: { method, route, status: String(status) }, count: 0 };
        counts.set(countKey, count);
      }
      const durationKey = `${method} ${route}`;
      let duration = durations.get(durationKey);
      if (!duration) {
        duration = {
          labels: { method, route },
          buckets: new Array(bucketBounds.length + 1).fill(0),
          sum: 0,
          count: 0,
        };
        durations.set(durationKey, duration);
      }
      const countTally = count;
      const durationTally = duration;
      return (durationSeconds) => {
        countTally.count += 1;
        let bucket = 0;
        while (bucket < bucketBounds.length && durationSeconds > (bucketBounds[bucket] as number))
          bucket += 1;
        durationTally.buckets[bucket] = (durationTally.buckets[bucket] as number) + 1;
        durationTally.sum += durationSeconds;
        durationTally.count += 1;
      };
    },
  };
}

function bucketSample(
  name: string,
  tally: DurationTally,
  bound: number | "+Inf",
  cumulative: number,
): Sample {
  return {
    metricName: `${name}_bucket`,
    labels: { le: bound, ...tally.labels },
    value: cumulative,
  };
}

/** A metric rendered by the registry from values computed at scrape time. */
function registerCustomMetric(
  registry: Registry,
  spec: {
    name: string;
    help: string;
    type: "counter" | "histogram";
    values: () => Sample[];
  },
): void {
  const { name, help, type } = spec;
  const metric = {
    name,
    help,
    type,
    aggregator: "sum",
    get: async (): Promise<MetricObjectWithValues<Sample>> =>
      ({ name, help, type, aggregator: "sum", values: spec.values() }) as never,
    reset() {},
  };
  // The registry calls get() (and reads name, help, type) on what it holds: the same contract
  // as its own Counter and Histogram, which are classes with more members than it uses.
  registry.registerMetric(metric as unknown as Metric);
}
