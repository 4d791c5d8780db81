// The event producer of bench:delivery, in a process of its own (as `svc sync` or `svc import`
// write events beside a running server), so the dispatcher under test spends its process on the
// pipeline alone. Three modes:
// - `--fill N`: writes N events, 50 per transaction (as a sync touching many accounts does);
// - `--seconds S` alone: keeps the delivery backlog above a low water mark for S seconds;
// - `--rate R --seconds S --times-file F` (the latency phase): R events a second for S seconds,
//   each transaction one account's sync raising `--per-transaction` events (default 1), followed
//   by the outbox notice as a sync sends it; every event's id and the moment its transaction
//   committed (performance.timeOrigin + now(), comparable across processes on one host) go to F.
// Then it prints one JSON line with how many it wrote, the rate it offered and its CPU time.
import { parseArgs } from "node:util";
import { eq, sql } from "drizzle-orm";
import { loadConfig } from "../../src/config/config.ts";
import { systemClock } from "../../src/core/clock.ts";
import { openDatabase } from "../../src/db/open.ts";
import { openServices } from "../../src/server/services.ts";
import { recordAccountEvents } from "../../src/webhooks/events/write.ts";

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    "data-dir": { type: "string" },
    "database-url": { type: "string" },
    accounts: { type: "string" },
    seconds: { type: "string" },
    "low-water": { type: "string" },
    fill: { type: "string" },
    rate: { type: "string" },
    "per-transaction": { type: "string" },
    "times-file": { type: "string" },
  },
});
const accountIds = (values.accounts ?? "").split(",").filter(Boolean);
if (!values["data-dir"] || !(values.seconds || values.fill) || accountIds.length === 0) {
  throw new Error(
    "usage: delivery-producer.ts --data-dir D [--database-url U] --accounts A,B --seconds S",
  );
}
const dataDir = values["data-dir"];
const databaseUrl = values["database-url"];
if (values.rate) {
  await produceAtRate(Number(values.rate), Number(values.seconds ?? 0));
  process.exit(0);
}

/**
 * The latency phase's producer: the service's own sync path writes through openServices (its
 * outbox signal relays the notice to the serving process: NOTIFY on PostgreSQL, the change
 * counter on SQLite).
 */
async function produceAtRate(rate: number, seconds: number): Promise<void> {
  const perTransaction = Number(values["per-transaction"] ?? 1);
  const services = await openServices(
    loadConfig({
      env: {},
      cwd: dataDir as string,
      flags: { dataDir: dataDir as string, ...(databaseUrl ? { databaseUrl } : {}) },
    }),
  );
  const lines: string[] = [];
  let produced = 0;
  let account = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  while (performance.now() < until) {
    const due = Math.floor(((performance.now() - started) / 1000) * rate) - produced;
    // Behind schedule on a busy machine, it catches up, but never past --seconds.
    for (let i = 0; i < due && performance.now() < until; i += perTransaction) {
      const accountId = accountIds[account++ % accountIds.length] as string;
      const count = Math.min(perTransaction, due - i);
      const recorded = await services.db.write((tx) =>
        recordAccountEvents(
          tx,
          systemClock,
          Array.from({ length: count }, () => ({
            serviceAccountId: accountId,
            type: "account.transactions.available" as const,
            data: { account_id: accountId, fetched_at: new Date().toISOString(), new_count: 1 },
          })),
        ),
      );
      const committedAt = performance.timeOrigin + performance.now();
      services.outbox.notify();
      for (const event of recorded) lines.push(`${event.eventId} ${committedAt}`);
      produced += count;
    }
    await Bun.sleep(1);
  }
  const elapsedS = (performance.now() - started) / 1000;
  const usage = process.cpuUsage();
  // The share of the run this process held the write lock (SQLite): the service's turns wait
  // for it, so the latency phase's tail depends on it.
  const lockStats = services.database.writeLockStats?.();
  const lockHeldMs = lockStats
    ? Object.values(lockStats).reduce((sum, entry) => sum + entry.heldMs, 0)
    : undefined;
  await Bun.write(values["times-file"] as string, `${lines.join("\n")}\n`);
  await services.database.close();
  console.log(
    JSON.stringify({
      written: lines.length,
      offeredPerSecond: lines.length / elapsedS,
      cpuMs: (usage.user + usage.system) / 1000,
      lockHeldShare: lockHeldMs === undefined ? undefined : lockHeldMs / 1000 / elapsedS,
    }),
  );
}

const lowWater = Number(values["low-water"] ?? 2560);
const database = openDatabase({
  dataDir,
  ...(databaseUrl ? { databaseUrl, databasePoolSize: 2 } : {}),
});
const { db } = database;
const { deliveries } = db.t;
let next = 0;
let written = 0;
const pending = async () =>
  Number(
    (
      await db
        .select({ n: sql<number>`count(*)` })
        .from(deliveries)
        .where(eq(deliveries.status, "pending"))
    )[0]?.n ?? 0,
  );
const writeFifty = () =>
  db.write((tx) =>
    recordAccountEvents(
      tx,
      systemClock,
      Array.from({ length: 50 }, () => {
        const accountId = accountIds[next++ % accountIds.length] as string;
        return {
          serviceAccountId: accountId,
          type: "account.transactions.available" as const,
          data: { account_id: accountId, fetched_at: new Date().toISOString(), new_count: 1 },
        };
      }),
    ),
  );
// --fill N: write N events at once and stop (the backlog a dispatcher then drains).
const fill = Number(values.fill ?? 0);
while (written < fill) {
  await writeFifty();
  written += 50;
}
const until = performance.now() + Number(values.seconds ?? 0) * 1000;
while (performance.now() < until) {
  if ((await pending()) < lowWater) {
    for (let i = 0; i < 10; i++) {
      await writeFifty();
      written += 50;
      await Bun.sleep(1); // short transactions with gaps, as svc import and svc sync write
    }
  }
  await Bun.sleep(10);
}
const usage = process.cpuUsage();
await database.close();
console.log(JSON.stringify({ written, cpuMs: (usage.user + usage.system) / 1000 }));
