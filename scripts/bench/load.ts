// A keep-alive HTTP load generator in its own process, used by read-api.ts when `wrk` is not
// installed: `connections` concurrent request loops for `seconds`, then one JSON line with the
// request rate and latency percentiles. Every response must be 200. `--rotate FILE` takes each
// request's path and key from the next "<path> <api key>" line of FILE (as rotate.lua does),
// starting after `--offset` lines.
import { parseArgs } from "node:util";

const { values, positionals } = parseArgs({
  args: Bun.argv.slice(2),
  allowPositionals: true,
  options: {
    connections: { type: "string", default: "32" },
    seconds: { type: "string", default: "5" },
    header: { type: "string", multiple: true, default: [] },
    rotate: { type: "string" },
    offset: { type: "string", default: "0" },
  },
});
const url = positionals[0];
if (!url) throw new Error("usage: load.ts URL [--connections N] [--seconds S] [--header 'K: V']");
const headers = Object.fromEntries(
  (values.header as string[]).map((h) => {
    const at = h.indexOf(":");
    return [h.slice(0, at).trim(), h.slice(at + 1).trim()];
  }),
);
const origin = new URL(url).origin;
const rotation = values.rotate
  ? (await Bun.file(values.rotate).text())
      .split("\n")
      .filter((line) => line.includes(" "))
      .map((line) => {
        const [path, key] = line.split(" ");
        return { url: `${origin}${path}`, headers: { ...headers, Authorization: `Bearer ${key}` } };
      })
  : [];
let nextLine = Number(values.offset);
const connections = Number(values.connections);
const durationMs = Number(values.seconds) * 1000;
const latencies: number[] = [];
let failures = 0;
const started = performance.now();
const deadline = started + durationMs;

async function loop() {
  while (performance.now() < deadline) {
    const t0 = performance.now();
    const line = rotation.length > 0 ? rotation[nextLine++ % rotation.length] : undefined;
    const response = await fetch(line?.url ?? (url as string), {
      headers: line?.headers ?? headers,
    });
    await response.arrayBuffer();
    latencies.push(performance.now() - t0);
    if (response.status !== 200) failures++;
  }
}
await Promise.all(Array.from({ length: connections }, loop));
const elapsedS = (performance.now() - started) / 1000;
latencies.sort((a, b) => a - b);
const at = (q: number) =>
  latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
console.log(
  JSON.stringify({
    requests: latencies.length,
    failures,
    rps: latencies.length / elapsedS,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
  }),
);
