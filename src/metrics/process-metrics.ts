// A few process series, written here rather than prom-client's collectDefaultMetrics(): under
// Bun some default collectors report nonsense (the event-loop delay histogram is a stub that
// yields NaN and 9.2e9 s, the "heap" figure is the virtual reservation), and a wrong series is
// worse than none. These read process.memoryUsage() and process.cpuUsage(), which Bun implements.
import { Counter, Gauge, type Registry } from "./prom.ts";

export function registerProcessMetrics(registry: Registry, name: (suffix: string) => string): void {
  const registers = [registry];
  const startSeconds = Math.round(Date.now() / 1000 - process.uptime());
  new Gauge({
    name: name("process_start_time_seconds"),
    help: "When this process started, in unix seconds.",
    registers,
  }).set(startSeconds);
  new Gauge({
    name: name("process_resident_memory_bytes"),
    help: "Resident set size of this process.",
    registers,
    collect() {
      this.set(process.memoryUsage().rss);
    },
  });
  new Gauge({
    name: name("process_heap_used_bytes"),
    help: "JavaScript heap in use.",
    registers,
    collect() {
      this.set(process.memoryUsage().heapUsed);
    },
  });
  new Counter({
    name: name("process_cpu_seconds_total"),
    help: "User and system CPU time used by this process.",
    registers,
    collect() {
      const usage = process.cpuUsage();
      this.reset();
      this.inc((usage.user + usage.system) / 1e6);
    },
  });
}
