// Recover (spec 6; docs/decisions.md "Recover walks a window…"): which events a recovery re-sends,
// its pace, one per endpoint, cancel and the daily limits, through the real delivery engine against
// a loopback HTTPS receiver under a fake clock, on the engine of this run.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import type { Dispatcher } from "../../src/webhooks/delivery/dispatcher.ts";
import {
  failuresBeforeDisabling,
  retryDelaysMs,
} from "../../src/webhooks/delivery/retry-schedule.ts";
import {
  cancelRecovery,
  getRecovery,
  previewRecovery,
  recoveriesPerDay,
  recoveryPacePerSecond,
  startRecovery,
} from "../../src/webhooks/delivery-log/recovery.ts";
import {
  recoveryStepMs,
  runDueRecoveries,
  stepRecovery,
} from "../../src/webhooks/delivery-log/recovery-steps.ts";
import { rotateEndpointSecret } from "../../src/webhooks/endpoints/registration.ts";
import {
  enableEndpoint,
  pauseEndpoint,
  resumeEndpoint,
} from "../../src/webhooks/endpoints/state.ts";
import { recordAccountEvent } from "../../src/webhooks/events/write.ts";
import { type Receiver, startReceiver } from "../support/receiver.ts";
import { waitUntil } from "../support/wait.ts";
import { verifyWebhook } from "../support/webhook-verifier.ts";
import {
  apiErrorOf,
  createWebhookSetup,
  registerVerified,
  testCertificates,
  testDispatcher,
  type WebhookSetup,
} from "../support/webhooks.ts";

const cleanups: (() => unknown)[] = [];
let receiver: Receiver;
/** Paths whose receiver answers 500 to account events (verification always succeeds). */
const down = new Set<string>();
/** Paths whose receiver holds account events until the promise gives a status. */
const held = new Map<string, Promise<number>>();

beforeAll(async () => {
  receiver = startReceiver((await testCertificates()).cert, async (req) => {
    const type = JSON.parse(req.body).type;
    const hold = held.get(req.path);
    if (hold && type !== "webhook.verify") return new Response(null, { status: await hold });
    const failing = type !== "webhook.verify" && down.has(req.path);
    return new Response(null, { status: failing ? 500 : 200 });
  });
});
afterAll(() => receiver.stop());
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

async function setup(): Promise<WebhookSetup> {
  const s = await createWebhookSetup();
  cleanups.push(() => s.close());
  return s;
}

function dispatcher(s: WebhookSetup): Dispatcher {
  const d = testDispatcher(s, { concurrency: 1, outbox: false });
  cleanups.push(() => d.stop());
  return d;
}

async function raise(s: WebhookSetup, n: number) {
  s.clock.advance(1);
  return s.services.db.write((tx) =>
    recordAccountEvent(tx, s.clock, {
      serviceAccountId: s.accountId,
      type: "account.transactions.available",
      data: {
        account_id: "5b0c1f7e-8f2a-4d59-9a51-0d6f3c2b1a90",
        fetched_at: s.clock.now().toISOString(),
        new_count: n,
      },
    }),
  );
}

const accountEventsAt = (path: string) =>
  receiver.requests.filter(
    (r) => r.path === path && JSON.parse(r.body).type === "account.transactions.available",
  );

/** Every retry of the schedule runs (and fails while the path is down): the deliveries drop. */
async function exhaustRetries(s: WebhookSetup, d: Dispatcher) {
  for (const delayMs of retryDelaysMs) {
    s.clock.advance(delayMs);
    await d.runDue();
  }
}

/** An endpoint whose receiver was down long enough to be disabled, then enabled again. */
async function disabledWhileDown(s: WebhookSetup, d: Dispatcher, path: string, raised: number) {
  const { endpoint } = await registerVerified(s, receiver, path);
  down.add(path);
  const events: { eventId: string; body: string }[] = [];
  for (let i = 1; i <= raised; i++) {
    events.push(await raise(s, i));
    await d.runDue();
  }
  down.delete(path);
  return { endpoint, events };
}

describe("recover", () => {
  test("re-sends only the window's events whose delivery failed for good or was cut, in creation order, with the stored bytes and the current secret; never-sent events stay unsent and are counted", async () => {
    const s = await setup();
    const d = dispatcher(s);
    const path = `/rec-${crypto.randomUUID()}`;
    const { endpoint } = await registerVerified(s, receiver, path);
    const since = s.clock.now();
    down.add(path);
    const dropped1 = await raise(s, 1);
    const dropped2 = await raise(s, 2);
    await d.runDue();
    await exhaustRetries(s, d); // 14 failures, below the 20 that disable
    down.delete(path);
    const delivered = await raise(s, 3);
    await d.runDue();
    await pauseEndpoint(s.services.db, s.clock, { endpointId: endpoint.id });
    const whilePaused = await raise(s, 4);
    await resumeEndpoint(s.services.db, s.clock, { endpointId: endpoint.id });
    down.add(path);
    const retrying = await raise(s, 5);
    await d.runDue(); // first attempt failed, retry 1 pending
    down.delete(path);
    const rotated = await rotateEndpointSecret(s.services, { endpointId: endpoint.id });

    const ref = { endpointId: endpoint.id, serviceAccountId: s.accountId };
    expect(await previewRecovery(s.services, ref, { since })).toMatchObject({
      recoverable: 2,
      unsent: 1,
    });
    const started = await startRecovery(s.services, ref, { since });
    expect(started).toMatchObject({ status: "running", total: 2, sent: 0, unsent: 1 });
    const before = accountEventsAt(path).length;
    expect(await runDueRecoveries(s.services.db, s.clock)).toBe(2);
    await d.runDue();
    const resent = accountEventsAt(path).slice(before);
    expect(resent.map((r) => r.headers["svc-webhook-id"])).toEqual([
      dropped1.eventId,
      dropped2.eventId,
    ]);
    expect(resent.map((r) => r.body)).toEqual([dropped1.body, dropped2.body]);
    for (const r of resent) {
      const verified = verifyWebhook({
        secret: rotated.signingSecret,
        headers: r.headers,
        rawBody: r.body,
        nowSeconds: Math.floor(s.clock.now().getTime() / 1000),
      });
      expect(verified.ok).toBe(true);
    }
    const ids = resent.map((r) => r.headers["svc-webhook-id"]);
    for (const untouched of [delivered, whilePaused, retrying]) {
      expect(ids).not.toContain(untouched.eventId);
    }
    expect(await getRecovery(s.services.db, { ...ref, recoveryId: started.id })).toMatchObject({
      status: "completed",
      total: 2,
      sent: 2,
      delivered: 2,
      failed: 0,
      inFlight: 0,
    });
  });

  test(`paced: at most ${recoveryPacePerSecond} events queued per step and one step per ${recoveryStepMs} ms; deliveries cut by disabling are recovered, those raised while disabled stay unsent`, async () => {
    const s = await setup();
    const d = dispatcher(s);
    const path = `/pace-${crypto.randomUUID()}`;
    const since = s.clock.now();
    const raised = failuresBeforeDisabling + 5;
    const { endpoint, events } = await disabledWhileDown(s, d, path, raised);
    await enableEndpoint(s.services.db, s.clock, { endpointId: endpoint.id });
    const ref = { endpointId: endpoint.id };
    const recovery = await startRecovery(s.services, ref, { since });
    expect(recovery).toMatchObject({ total: failuresBeforeDisabling, unsent: 5 });

    const queued: number[] = [];
    queued.push(await runDueRecoveries(s.services.db, s.clock));
    queued.push(await runDueRecoveries(s.services.db, s.clock)); // not due yet
    s.clock.advance(recoveryStepMs - 1);
    queued.push(await runDueRecoveries(s.services.db, s.clock)); // still not due
    s.clock.advance(1);
    queued.push(await runDueRecoveries(s.services.db, s.clock));
    s.clock.advance(recoveryStepMs);
    queued.push(await runDueRecoveries(s.services.db, s.clock)); // the window is done
    expect(queued).toEqual([10, 0, 0, 10, 0]);
    const before = accountEventsAt(path).length;
    await d.runDue();
    const resent = accountEventsAt(path).slice(before);
    expect(resent.map((r) => r.headers["svc-webhook-id"])).toEqual(
      events.slice(0, failuresBeforeDisabling).map((e) => e.eventId),
    );
    expect(await getRecovery(s.services.db, { ...ref, recoveryId: recovery.id })).toMatchObject({
      status: "completed",
      sent: failuresBeforeDisabling,
      delivered: failuresBeforeDisabling,
    });
  });

  test("a delivery cancelled while its attempt was under way (its count stays 0, the attempt is logged) is recovered as cut, not counted as never sent", async () => {
    const s = await setup();
    const d = dispatcher(s);
    const path = `/mid-${crypto.randomUUID()}`;
    const { endpoint } = await registerVerified(s, receiver, path);
    const since = s.clock.now();
    let answer: (status: number) => void = () => {};
    held.set(
      path,
      new Promise<number>((resolve) => {
        answer = resolve;
      }),
    );
    const event = await raise(s, 1);
    const sending = d.runDue();
    await waitUntil(
      () => accountEventsAt(path).some((r) => r.headers["svc-webhook-id"] === event.eventId),
      "the attempt to reach the receiver",
    );
    const ref = { endpointId: endpoint.id };
    await pauseEndpoint(s.services.db, s.clock, ref);
    answer(500);
    await sending;
    held.delete(path);
    await resumeEndpoint(s.services.db, s.clock, ref);
    const { deliveries } = s.services.db.t;
    const [row] = await s.services.db
      .select({ status: deliveries.status, attemptCount: deliveries.attemptCount })
      .from(deliveries)
      .where(eq(deliveries.eventId, event.eventId));
    expect(row).toEqual({ status: "cancelled", attemptCount: 0 });
    expect(await previewRecovery(s.services, ref, { since })).toMatchObject({
      recoverable: 1,
      unsent: 0,
    });
  });

  test("a step is taken once: steps running at the same moment queue each event once", async () => {
    const s = await setup();
    const d = dispatcher(s);
    const since = s.clock.now();
    const { endpoint } = await disabledWhileDown(s, d, `/once-${crypto.randomUUID()}`, 20);
    await enableEndpoint(s.services.db, s.clock, { endpointId: endpoint.id });
    const recovery = await startRecovery(s.services, { endpointId: endpoint.id }, { since });
    const counts = await Promise.all(
      Array.from({ length: 4 }, () => stepRecovery(s.services.db, s.clock, recovery.id)),
    );
    expect(counts.reduce((a, b) => a + b, 0)).toBe(recoveryPacePerSecond);
    const { deliveries } = s.services.db.t;
    const rows = await s.services.db
      .select({ eventId: deliveries.eventId })
      .from(deliveries)
      .where(eq(deliveries.recoveryId, recovery.id));
    expect(new Set(rows.map((r) => r.eventId)).size).toBe(rows.length);
    expect(rows).toHaveLength(recoveryPacePerSecond);
  });

  test("recovered sends that fail count towards the failure streak as any delivery does, and disabling stops the recovery", async () => {
    const s = await setup();
    const d = dispatcher(s);
    const path = `/streak-${crypto.randomUUID()}`;
    const since = s.clock.now();
    const { endpoint } = await disabledWhileDown(s, d, path, failuresBeforeDisabling);
    await enableEndpoint(s.services.db, s.clock, { endpointId: endpoint.id });
    const recovery = await startRecovery(s.services, { endpointId: endpoint.id }, { since });
    down.add(path);
    try {
      expect(await runDueRecoveries(s.services.db, s.clock)).toBe(10);
      await d.runDue();
      const { webhookEndpoints } = s.services.db.t;
      const [row] = await s.services.db
        .select({ failureCount: webhookEndpoints.failureCount, status: webhookEndpoints.status })
        .from(webhookEndpoints)
        .where(eq(webhookEndpoints.id, endpoint.id));
      expect(row).toEqual({ failureCount: 10, status: "active" });
      s.clock.advance(recoveryStepMs);
      expect(await runDueRecoveries(s.services.db, s.clock)).toBe(10);
      await d.runDue();
      s.clock.advance(recoveryStepMs);
      expect(await runDueRecoveries(s.services.db, s.clock)).toBe(0);
      const after = await getRecovery(s.services.db, {
        endpointId: endpoint.id,
        recoveryId: recovery.id,
      });
      expect(after).toMatchObject({ status: "stopped", stopReason: "endpoint disabled" });
    } finally {
      down.delete(path);
    }
  });

  test("one recovery per endpoint at a time (409); cancel stops it and cancels what was not attempted yet", async () => {
    const s = await setup();
    const d = dispatcher(s);
    const since = s.clock.now();
    const { endpoint } = await disabledWhileDown(s, d, `/one-${crypto.randomUUID()}`, 20);
    await enableEndpoint(s.services.db, s.clock, { endpointId: endpoint.id });
    const ref = { endpointId: endpoint.id };
    const recovery = await startRecovery(s.services, ref, { since });
    const second = await apiErrorOf(() => startRecovery(s.services, ref, { since }));
    expect([second.status, second.code]).toEqual([409, "conflict"]);
    expect(await runDueRecoveries(s.services.db, s.clock)).toBe(10);
    const cancelled = await cancelRecovery(s.services, ref);
    expect(cancelled).toMatchObject({
      id: recovery.id,
      status: "cancelled",
      sent: 10,
      inFlight: 0,
      cancelled: 10,
    });
    s.clock.advance(recoveryStepMs);
    expect(await runDueRecoveries(s.services.db, s.clock)).toBe(0);
    expect(await d.runDue()).toBe(0);
    const again = await apiErrorOf(() => cancelRecovery(s.services, ref));
    expect([again.status, again.code]).toEqual([409, "invalid_state"]);
  });

  test(`at most ${recoveriesPerDay.limit} recoveries per account per day: 429 with Retry-After beyond`, async () => {
    const s = await setup();
    const d = dispatcher(s);
    const since = s.clock.now();
    const { endpoint } = await disabledWhileDown(s, d, `/limit-${crypto.randomUUID()}`, 20);
    await enableEndpoint(s.services.db, s.clock, { endpointId: endpoint.id });
    const ref = { endpointId: endpoint.id };
    for (let i = 0; i < recoveriesPerDay.limit; i++) {
      await startRecovery(s.services, ref, { since });
      await cancelRecovery(s.services, ref);
      s.clock.advance(1_000);
    }
    const refused = await apiErrorOf(() => startRecovery(s.services, ref, { since }));
    expect([refused.status, refused.code]).toEqual([429, "rate_limited"]);
    expect(Number(refused.headers["Retry-After"])).toBeGreaterThan(0);
    s.clock.advance(86_400_000);
    const recent = new Date(s.clock.now().getTime() - 86_400_000 / 2);
    // A day later the first ones left the window (the window itself must be within retention).
    expect((await startRecovery(s.services, ref, { since: recent })).status).toBe("completed");
  });

  test("refused: an endpoint that is not active and verified (409), a window in the future, reversed or past retention (400)", async () => {
    const s = await setup();
    const { endpoint } = await registerVerified(s, receiver, `/val-${crypto.randomUUID()}`);
    const ref = { endpointId: endpoint.id };
    const now = s.clock.now().getTime();
    const future = await apiErrorOf(() =>
      startRecovery(s.services, ref, { since: new Date(now - 1000), until: new Date(now + 1000) }),
    );
    expect(future.status).toBe(400);
    const reversed = await apiErrorOf(() =>
      startRecovery(s.services, ref, { since: new Date(now), until: new Date(now - 1000) }),
    );
    expect(reversed.status).toBe(400);
    const old = await apiErrorOf(() =>
      startRecovery(s.services, ref, { since: new Date(now - 400 * 86_400_000) }),
    );
    expect([old.status, old.message]).toEqual([400, expect.stringContaining("retention")]);
    await pauseEndpoint(s.services.db, s.clock, ref);
    const paused = await apiErrorOf(() =>
      startRecovery(s.services, ref, { since: new Date(now - 1000) }),
    );
    expect([paused.status, paused.code]).toEqual([409, "invalid_state"]);
  });
});
