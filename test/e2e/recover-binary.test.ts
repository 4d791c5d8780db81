// Recover end to end (spec 6) through the compiled binary and
// a real HTTPS receiver (a throwaway CA made by the test, trusted through the CA-file setting):
// a receiver that was down gets the endpoint disabled; after Enable, `svc endpoints recover`
// re-sends exactly the window's failed deliveries, each verifying with the current secret, in
// paced steps, while two serving processes share the database; one is restarted mid-recovery
// and nothing arrives twice. Then the one-at-a-time rule and the daily limit answer 409 and 429.
import { describe, expect, test } from "bun:test";
import { and, asc, eq, gte, isNotNull } from "drizzle-orm";
import type { Services } from "../../src/server/services.ts";
import {
  recoveriesPerDay,
  recoveryPacePerSecond,
} from "../../src/webhooks/delivery-log/recovery.ts";
import { recordAccountEvents } from "../../src/webhooks/events/write.ts";
import { type StartedBinary, startBinary } from "../support/binary.ts";
import {
  deliveringBinary,
  inProcessSvc,
  openWriter,
  verifiedEndpointThroughCli,
} from "../support/cli-setup.ts";
import { startReceiver } from "../support/receiver.ts";
import { waitUntil } from "../support/wait.ts";
import { verifyWebhook } from "../support/webhook-verifier.ts";

const bankAccountId = "5b0c1f7e-8f2a-4d59-9a51-0d6f3c2b1a90";

async function raise(writer: Services, owner: string, count: number): Promise<string[]> {
  const recorded = await writer.db.write((tx) =>
    recordAccountEvents(
      tx,
      writer.clock,
      Array.from({ length: count }, (_, i) => ({
        serviceAccountId: owner,
        type: "account.transactions.available" as const,
        data: { account_id: bankAccountId, fetched_at: new Date().toISOString(), new_count: i + 1 },
      })),
    ),
  );
  return recorded.map((r) => r.eventId);
}

interface Recovery {
  id: string;
  status: string;
  total: number;
  sent: number;
  unsent: number;
  delivered: number;
  in_flight: number;
}

describe("recover with the compiled binary", () => {
  test("re-sends only the window's failed deliveries, verified with the current secret, paced, once each across two processes and a restart; 409 while one runs, 429 past the daily limit", async () => {
    const { binary, cert, cwd, env } = await deliveringBinary("svc-recover", {
      SVC_LOG_LEVEL: "warn",
    });
    let healthy = false;
    const receiver = startReceiver(cert, (req) => {
      const type = JSON.parse(req.body).type;
      const ok = healthy || type === "webhook.verify";
      return new Response(null, { status: ok ? 200 : 503 });
    });
    const servers: StartedBinary[] = [];
    let writer: Services | undefined;
    try {
      const svc = inProcessSvc(cwd, env);
      const { accountId: owner, endpointId } = await verifiedEndpointThroughCli(
        svc,
        receiver,
        "recover@example.com",
        receiver.url("/recover"),
      );
      writer = await openWriter(cwd);
      const w = writer;
      const { deliveries, deliveryAttempts, events, webhookEndpoints } = w.db.t;
      const endpointStatus = async () =>
        (
          await w.db
            .select({ status: webhookEndpoints.status })
            .from(webhookEndpoints)
            .where(eq(webhookEndpoints.id, endpointId))
        )[0]?.status;

      // The receiver is down: early failures, then a window in which the endpoint is disabled.
      servers.push(await startBinary(binary, { cwd, env }));
      const early = await raise(w, owner, 5);
      await waitUntil(async () => receiver.requests.length >= 1 + early.length, "early attempts");
      await Bun.sleep(5);
      const since = new Date();
      await Bun.sleep(5);
      await raise(w, owner, 25);
      await waitUntil(async () => (await endpointStatus()) === "disabled", "the endpoint disabled");
      await raise(w, owner, 2); // raised while disabled: never sent
      await servers.pop()?.stop();

      // The window's events whose delivery was attempted and cut: what a recovery re-sends.
      const cut = await w.db
        .selectDistinct({ id: events.id, createdAt: events.createdAt })
        .from(events)
        .innerJoin(deliveries, eq(deliveries.eventId, events.id))
        .innerJoin(deliveryAttempts, eq(deliveryAttempts.deliveryId, deliveries.id))
        .where(
          and(
            eq(deliveries.endpointId, endpointId),
            eq(deliveries.status, "cancelled"),
            gte(events.createdAt, since),
          ),
        )
        .orderBy(asc(events.createdAt), asc(events.id));
      const expected = cut.map((r) => r.id);
      expect(expected.length).toBeGreaterThanOrEqual(15);

      healthy = true;
      expect((await svc("endpoints", "enable", endpointId)).code).toBe(0);
      const secret = (await svc("endpoints", "rotate-secret", endpointId)).json<{
        signing_secret: string;
      }>().signing_secret;
      const before = receiver.requests.length;

      const started = await svc("endpoints", "recover", endpointId, "--since", since.toISOString());
      expect(started.code).toBe(0);
      const recovery = started.json<Recovery>();
      expect(recovery).toMatchObject({
        status: "running",
        total: expected.length,
        unsent: 25 + 2 - expected.length,
      });
      const again = await svc("endpoints", "recover", endpointId, "--since", "1h");
      expect(again.code).not.toBe(0);
      expect(again.stderr).toContain("running");

      // Two serving processes walk it; one of them is restarted half-way.
      servers.push(
        await startBinary(binary, { cwd, env }),
        await startBinary(binary, { cwd, env }),
      );
      const recovered = () => receiver.requests.slice(before);
      await waitUntil(async () => recovered().length >= recoveryPacePerSecond, "a first step");
      await servers.shift()?.stop();
      servers.push(await startBinary(binary, { cwd, env }));
      let progress: Recovery | undefined;
      await waitUntil(
        async () => {
          await Bun.sleep(200);
          const shown = await svc("endpoints", "recovery", endpointId);
          progress = shown.json<Recovery[]>()[0];
          return progress?.status === "completed" && progress.in_flight === 0;
        },
        "the recovery to complete",
        30_000,
      );
      expect(progress).toMatchObject({ sent: expected.length, delivered: expected.length });

      const got = recovered();
      expect(got.map((r) => r.headers["svc-webhook-id"]).sort()).toEqual([...expected].sort());
      for (const r of got) {
        const verified = verifyWebhook({
          secret,
          headers: r.headers,
          rawBody: r.body,
          nowSeconds: Math.floor(Date.now() / 1000),
        });
        expect(verified.ok).toBe(true);
      }
      // Paced: queued in steps of at most 10, a second apart, in creation order.
      const queued = await w.db
        .select({ eventId: deliveries.eventId, createdAt: deliveries.createdAt })
        .from(deliveries)
        .where(and(eq(deliveries.endpointId, endpointId), isNotNull(deliveries.recoveryId)))
        .orderBy(asc(deliveries.createdAt));
      const steps = new Map<number, string[]>();
      for (const row of queued) {
        const at = row.createdAt.getTime();
        steps.set(at, [...(steps.get(at) ?? []), row.eventId]);
      }
      const times = [...steps.keys()];
      for (const [i, at] of times.entries()) {
        expect((steps.get(at) as string[]).length).toBeLessThanOrEqual(recoveryPacePerSecond);
        if (i > 0) expect(at - (times[i - 1] as number)).toBeGreaterThanOrEqual(1_000);
      }
      expect(times.flatMap((at) => steps.get(at) as string[]).sort()).toEqual([...expected].sort());
      const order = times.map((at) =>
        (steps.get(at) as string[]).map((id) => expected.indexOf(id)),
      );
      for (let i = 1; i < order.length; i++) {
        expect(Math.min(...(order[i] as number[]))).toBeGreaterThan(
          Math.max(...(order[i - 1] as number[])),
        );
      }
      // And they arrive no faster: the last step's sends come a second per step after the first
      // (less the first step's connection set-up on a busy host).
      const arrivals = got.map((r) => r.receivedAt).sort((x, y) => x - y);
      const stepsNeeded = Math.ceil(expected.length / recoveryPacePerSecond);
      expect((arrivals.at(-1) as number) - (arrivals[0] as number)).toBeGreaterThanOrEqual(
        (stepsNeeded - 1) * 1_000 - 500,
      );
      for (const server of servers.splice(0)) expect(await server.stop()).toBe(0);

      // The daily limit: the early failures (before the window) are still recoverable.
      const earlySince = new Date(since.getTime() - 60 * 60_000).toISOString();
      for (let i = 1; i < recoveriesPerDay.limit; i++) {
        expect((await svc("endpoints", "recover", endpointId, "--since", earlySince)).code).toBe(0);
        expect((await svc("endpoints", "recovery", endpointId, "--cancel")).code).toBe(0);
      }
      const refused = await svc("endpoints", "recover", endpointId, "--since", earlySince);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain(`at most ${recoveriesPerDay.limit} per day`);
    } finally {
      for (const server of servers) await server.stop();
      await writer?.database.close();
      await receiver.stop();
    }
  }, 120_000);
});
