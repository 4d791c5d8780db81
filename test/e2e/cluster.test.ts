// Several serving processes on one database, through the compiled binary: on
// PostgreSQL three `svc serve` instances, on SQLite `svc serve --workers 3`. A burst of events
// written by another process is delivered to an HTTPS receiver exactly once each; then one
// serving process is killed with SIGKILL mid-load, and every event is still delivered, with
// duplicates only for attempts that were under way on the killed process (taken over by the
// others as soon as they see it gone).
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import type { Services } from "../../src/server/services.ts";
import { recordAccountEvents } from "../../src/webhooks/events/write.ts";
import { type StartedBinary, startBinary } from "../support/binary.ts";
import {
  binarySvc,
  deliveringBinary,
  openWriter,
  verifiedEndpointThroughCli,
} from "../support/cli-setup.ts";
import { testEngine } from "../support/engine.ts";
import { startReceiver } from "../support/receiver.ts";
import { waitUntil } from "../support/wait.ts";

const burst = 400;
const secondBurst = 400;
/** Sends under way per process at most (deliveryConcurrency): the bound on duplicates. */
const concurrency = 16;

async function writeEvents(writer: Services, owner: string, count: number, from: number) {
  for (let start = 0; start < count; start += 50) {
    await writer.db.write((tx) =>
      recordAccountEvents(
        tx,
        writer.clock,
        Array.from({ length: Math.min(50, count - start) }, (_, i) => ({
          serviceAccountId: owner,
          type: "account.transactions.available" as const,
          data: {
            account_id: "5b0c1f7e-8f2a-4d59-9a51-0d6f3c2b1a90",
            fetched_at: new Date().toISOString(),
            new_count: from + start + i + 1,
          },
        })),
      ),
    );
    writer.outbox.notify();
  }
}

describe(`three serving processes on one ${testEngine} database`, () => {
  test("a burst is delivered once each; after one process is killed every event still arrives, duplicates only for its sends under way", async () => {
    const { binary, cert, cwd, env } = await deliveringBinary("svc-cluster", {
      SVC_LOG_LEVEL: "warn",
      SVC_DELIVERY_CONCURRENCY: String(concurrency),
    });
    const received = new Map<string, number>();
    const receiver = startReceiver(cert, async (request) => {
      const event = JSON.parse(request.body) as { id: string; type: string };
      if (event.type !== "webhook.verify") {
        received.set(event.id, (received.get(event.id) ?? 0) + 1);
      }
      await Bun.sleep(5);
      return new Response(null, { status: 200 });
    });
    const svc = binarySvc(binary, cwd, env);
    const servers: StartedBinary[] = [];
    let writer: Services | undefined;
    try {
      const { accountId: owner } = await verifiedEndpointThroughCli(
        svc,
        receiver,
        "owner@example.com",
        receiver.url("/hooks"),
      );

      // Three serving processes: three instances (PostgreSQL) or three workers (SQLite).
      if (testEngine === "postgres") {
        for (let i = 0; i < 3; i++) servers.push(await startBinary(binary, { cwd, env }));
      } else {
        servers.push(await startBinary(binary, { cwd, env, args: ["--workers", "3"] }));
      }
      writer = await openWriter(cwd);

      await writeEvents(writer, owner, burst, 0);
      await waitUntil(() => received.size === burst, `${burst} deliveries`, 60_000);
      expect([...received.values()].filter((count) => count > 1)).toEqual([]);

      // The second burst, and one serving process killed while it is being delivered.
      await writeEvents(writer, owner, secondBurst, burst);
      await waitUntil(() => received.size >= burst + 50, "the second burst under way", 30_000);
      let victim: number;
      if (testEngine === "postgres") {
        victim = (servers[1] as StartedBinary).process.pid;
      } else {
        // One of the supervisor's workers (its children, as Linux lists them).
        const supervisor = (servers[0] as StartedBinary).process.pid;
        const children = readFileSync(`/proc/${supervisor}/task/${supervisor}/children`, "utf8");
        victim = Number(children.trim().split(/\s+/)[0]);
      }
      process.kill(victim, "SIGKILL");
      // Its claims come back at once: the other processes see it gone (src/cluster/processes.ts).
      await waitUntil(
        () => received.size === burst + secondBurst,
        "every event of the second burst",
        60_000,
      );
      const duplicates = [...received.values()].filter((count) => count > 1).length;
      expect(duplicates).toBeLessThanOrEqual(concurrency);
    } finally {
      await writer?.database.close();
      for (const [index, server] of servers.entries()) {
        if (testEngine === "postgres" && index === 1) await server.stop("SIGKILL");
        else await server.stop("SIGTERM");
      }
      await receiver.stop();
    }
  }, 150_000);
});
