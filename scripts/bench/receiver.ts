// The benchmark's webhook receiver, run as its own process: HTTPS on loopback, records when
// each event id arrived (epoch ms with sub-millisecond precision) and answers 200 at once.
// Control routes: GET /_stats (count, CPU), POST /_drain (arrivals since the last drain).
import { parseArgs } from "node:util";

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: { cert: { type: "string" }, key: { type: "string" } },
});
if (!values.cert || !values.key) throw new Error("usage: receiver.ts --cert FILE --key FILE");

const now = () => performance.timeOrigin + performance.now();
let arrivals: [string, number][] = [];
let count = 0;

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  tls: { cert: Bun.file(values.cert), key: Bun.file(values.key) },
  idleTimeout: 60,
  fetch(req) {
    const at = now();
    const { pathname } = new URL(req.url);
    if (pathname === "/_stats") {
      const cpu = process.cpuUsage();
      return Response.json({ count, cpuMs: (cpu.user + cpu.system) / 1000 });
    }
    if (pathname === "/_drain") {
      const drained = arrivals;
      arrivals = [];
      return Response.json(drained);
    }
    count++;
    arrivals.push([req.headers.get("svc-webhook-id") ?? "", at]);
    return new Response(null, { status: 200 });
  },
});
console.log(`PORT ${server.port}`);
process.on("SIGTERM", () => {
  server.stop(true);
  process.exit(0);
});
