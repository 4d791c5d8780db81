// prom-client's four classes the service uses, each from its own file: the package's index also
// loads the Pushgateway (http, https, zlib), the cluster aggregator and the default metrics,
// which the service never uses and which cost a start ~80 ms of CPU (measured in a compiled
// binary, importing the index alone against an empty program).
import type * as PromClient from "prom-client";
import counter from "prom-client/lib/counter.js";
import gauge from "prom-client/lib/gauge.js";
import histogram from "prom-client/lib/histogram.js";
import registry from "prom-client/lib/registry.js";

export const Counter = counter as typeof PromClient.Counter;
export const Gauge = gauge as typeof PromClient.Gauge;
export const Histogram = histogram as typeof PromClient.Histogram;
export const Registry = registry as typeof PromClient.Registry;
export type Registry = PromClient.Registry;
