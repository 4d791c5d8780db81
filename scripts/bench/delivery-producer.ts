// The event producer of bench:delivery's throughput phase, in a process of its own (as `svc sync`
// or `svc import` write events beside a running server): keeps the delivery backlog above a low
// water mark by writing account events, 50 per transaction (as a sync touching many accounts
// does), for --seconds; then prints one JSON line with how many it wrote and its CPU time. The
// dispatcher under test thus spends its process on the pipeline alone.
import { parseArgs } from "node:util";
import { eq, sql } from "drizzle-orm";
import { systemClock } from "../../src/core/clock.ts";
import { openDatabase } from "../../src/db/open.ts";
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
  },
});
const accountIds = (values.accounts ?? "").split(",").filter(Boolean);
if (!values["data-dir"] || !(values.seconds || values.fill) || accountIds.length === 0) {
  throw new Error(
    "usage: delivery-producer.ts --data-dir D [--database-url U] --accounts A,B --seconds S",
  );
}
const lowWater = Number(values["low-water"] ?? 2560);
const database = openDatabase({
  dataDir: values["data-dir"],
  ...(values["database-url"] ? { databaseUrl: values["database-url"], databasePoolSize: 2 } : {}),
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
