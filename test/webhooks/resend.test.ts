// Resend, Retry now and the per-endpoint event-type filter,
// through the real delivery engine against a loopback HTTPS receiver, under a fake clock.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { Dispatcher } from "../../src/webhooks/delivery/dispatcher.ts";
import { testEndpoint } from "../../src/webhooks/delivery/test-send.ts";
import { sendVerificationCode, verifyEndpoint } from "../../src/webhooks/delivery/verification.ts";
import { getDelivery, listDeliveries } from "../../src/webhooks/delivery-log/log.ts";
import {
  resendDelivery,
  resendEvent,
  resendLimit,
  retryDeliveryNow,
} from "../../src/webhooks/delivery-log/resend.ts";
import { registerEndpoint, updateEndpoint } from "../../src/webhooks/endpoints/registration.ts";
import { pauseEndpoint, removeEndpoint } from "../../src/webhooks/endpoints/state.ts";
import { recordAccountEvent } from "../../src/webhooks/events/write.ts";
import { acceptVerification, type Receiver, startReceiver } from "../support/receiver.ts";
import { waitUntil } from "../support/wait.ts";
import {
  apiErrorOf,
  createWebhookSetup,
  registerVerified,
  testCertificates,
  testDispatcher,
  type WebhookSetup,
} from "../support/webhooks.ts";

const accountUuid = "5b0c1f7e-8f2a-4d59-9a51-0d6f3c2b1a90";
const cleanups: (() => unknown)[] = [];
let ok: Receiver;

beforeAll(async () => {
  ok = startReceiver((await testCertificates()).cert);
});
afterAll(() => ok.stop());
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

async function setup(options: Parameters<typeof createWebhookSetup>[0] = {}) {
  const s = await createWebhookSetup(options);
  cleanups.push(() => s.close());
  return s;
}

function dispatcher(s: WebhookSetup): Dispatcher {
  const d = testDispatcher(s);
  cleanups.push(() => d.stop());
  return d;
}

async function raiseTransactions(s: WebhookSetup) {
  return s.services.db.write((tx) =>
    recordAccountEvent(tx, s.clock, {
      serviceAccountId: s.accountId,
      type: "account.transactions.available",
      data: { account_id: accountUuid, fetched_at: s.clock.now().toISOString(), new_count: 2 },
    }),
  );
}

async function raiseBalance(s: WebhookSetup) {
  return s.services.db.write((tx) =>
    recordAccountEvent(tx, s.clock, {
      serviceAccountId: s.accountId,
      type: "account.balance.updated",
      data: { account_id: accountUuid, fetched_at: s.clock.now().toISOString() },
    }),
  );
}

/** Requests the receiver got at `path` carrying event `type`. */
function received(receiver: Receiver, path: string, type?: string) {
  return receiver.requests.filter(
    (r) => r.path === path && (type === undefined || JSON.parse(r.body).type === type),
  );
}

describe("resend", () => {
  test("a resent event arrives again with the same event id and body as a new, manual delivery with its own attempt log; the outbox signal sends it at once", async () => {
    const s = await setup();
    const path = `/resend-${crypto.randomUUID()}`;
    const { endpoint } = await registerVerified(s, ok, path);
    const d = dispatcher(s);
    const event = await raiseTransactions(s);
    expect(await d.runDue()).toBe(1);
    const first = received(ok, path, "account.transactions.available");
    expect(first).toHaveLength(1);

    d.start(); // listens to the outbox signal; no tick (schedule: false)
    s.clock.advance(60_000);
    const resent = await resendEvent(
      { ...s.services, outbox: s.services.outbox },
      { endpointId: endpoint.id, serviceAccountId: s.accountId },
      event.eventId,
    );
    expect(resent).toMatchObject({
      eventId: event.eventId,
      endpointId: endpoint.id,
      manual: true,
      status: "pending",
      attemptCount: 0,
      attempts: [],
      nextAttemptAt: s.clock.now().toISOString(),
    });
    expect(resent.id).not.toBe(event.deliveryIds[0]);
    // Woken by the signal, not by a tick or runDue: wait for the arrival itself.
    while (received(ok, path, "account.transactions.available").length < 2) {
      await ok.waitFor(ok.requests.length + 1);
    }
    const [original, again] = received(ok, path, "account.transactions.available");
    expect(again?.body).toBe(original?.body as string);
    expect(again?.headers["svc-webhook-id"]).toBe(event.eventId);
    // The receiver has the bytes before the dispatcher records the outcome: wait for the record.
    await waitUntil(
      async () => (await getDelivery(s.services.db, resent.id))?.status === "succeeded",
      "the resent delivery to be recorded as succeeded",
    );
    const after = await getDelivery(s.services.db, resent.id);
    expect(after).toMatchObject({ status: "succeeded", manual: true, attemptCount: 1 });
    expect(after?.attempts).toHaveLength(1);
    const originalDelivery = await getDelivery(s.services.db, event.deliveryIds[0] as string);
    expect(originalDelivery).toMatchObject({ manual: false, attemptCount: 1 });
    expect(originalDelivery?.attempts).toHaveLength(1);
  });

  test("resending a delivery sends that delivery's event to that delivery's endpoint", async () => {
    const s = await setup();
    const { endpoint } = await registerVerified(s, ok, `/rd-${crypto.randomUUID()}`);
    const event = await raiseBalance(s);
    const resent = await resendDelivery(s.services, {
      deliveryId: event.deliveryIds[0] as string,
      endpointId: endpoint.id,
      serviceAccountId: s.accountId,
    });
    expect(resent).toMatchObject({ eventId: event.eventId, endpointId: endpoint.id, manual: true });
  });

  test("only to an active and verified endpoint: unverified or paused answers 409 invalid_state", async () => {
    const s = await setup();
    const { endpoint } = await registerVerified(s, ok, `/st-${crypto.randomUUID()}`);
    const event = await raiseBalance(s);
    const unverified = await registerEndpoint(s.ctx, {
      serviceAccountId: s.accountId,
      url: ok.url("/unverified"),
    });
    const refused = await apiErrorOf(() =>
      resendEvent(s.services, { endpointId: unverified.endpoint.id }, event.eventId),
    );
    expect([refused.status, refused.code]).toEqual([409, "invalid_state"]);
    expect(refused.message).toContain("not verified");
    await pauseEndpoint(s.services.db, s.clock, { endpointId: endpoint.id });
    const paused = await apiErrorOf(() =>
      resendEvent(s.services, { endpointId: endpoint.id }, event.eventId),
    );
    expect([paused.status, paused.code]).toEqual([409, "invalid_state"]);
    expect(paused.message).toContain("paused");
  });

  test("an event past retention, a test send's event, or another account's event is not resent", async () => {
    const s = await setup({ config: { retentionDays: 7 } });
    const other = await setup();
    const { endpoint } = await registerVerified(s, ok, `/ret-${crypto.randomUUID()}`);
    const old = await raiseBalance(s);
    const testSend = await testEndpoint(s.ctx, { endpointId: endpoint.id });
    s.clock.advance(7 * 86_400_000 + 1);
    const expired = await apiErrorOf(() =>
      resendEvent(s.services, { endpointId: endpoint.id }, old.eventId),
    );
    expect([expired.status, expired.code]).toEqual([409, "invalid_state"]);
    expect(expired.message).toContain("7-day retention");
    const fresh = await raiseBalance(s);
    expect((await resendEvent(s.services, { endpointId: endpoint.id }, fresh.eventId)).manual).toBe(
      true,
    );
    s.clock.advance(-7 * 86_400_000);
    const notAccount = await apiErrorOf(() =>
      resendEvent(s.services, { endpointId: endpoint.id }, testSend.eventId),
    );
    expect(notAccount.status).toBe(409);
    expect(notAccount.message).toContain("only account events");
    const otherEvent = await raiseBalance(other);
    const foreign = await apiErrorOf(() =>
      resendEvent(s.services, { endpointId: endpoint.id }, otherEvent.eventId),
    );
    expect([foreign.status, foreign.code]).toEqual([404, "not_found"]);
    const foreignEndpoint = await apiErrorOf(() =>
      resendEvent(
        s.services,
        { endpointId: endpoint.id, serviceAccountId: other.accountId },
        fresh.eventId,
      ),
    );
    expect(foreignEndpoint.status).toBe(404);
  });

  test("at most 60 per account in any 3,600 s, sliding, not per clock hour, 429 with when and Retry-After", async () => {
    const s = await setup();
    const { endpoint } = await registerVerified(s, ok, `/lim-${crypto.randomUUID()}`);
    const event = await raiseBalance(s);
    const ref = { endpointId: endpoint.id };
    const half = resendLimit.limit / 2;
    s.clock.advance(40 * 60_000); // 09:40: a clock-hour bucket would reset at 10:00
    const firstAt = s.clock.now().getTime();
    for (let i = 0; i < half; i++) await resendEvent(s.services, ref, event.eventId);
    s.clock.advance(30 * 60_000); // 10:10
    for (let i = 0; i < half; i++) await resendEvent(s.services, ref, event.eventId);
    const refused = await apiErrorOf(() => resendEvent(s.services, ref, event.eventId));
    expect([refused.status, refused.code]).toEqual([429, "rate_limited"]);
    // The first 30 leave the window at 10:40, 30 minutes from now.
    expect(refused.headers["Retry-After"]).toBe(String(30 * 60));
    expect(refused.message).toContain("at most 60 per hour");
    expect(refused.message).toContain(new Date(firstAt + 3_600_000).toISOString());
    s.clock.advance(30 * 60_000 - 1);
    const stillRefused = await apiErrorOf(() => resendEvent(s.services, ref, event.eventId));
    expect(stillRefused.headers["Retry-After"]).toBe("1");
    s.clock.advance(1);
    for (let i = 0; i < half; i++) await resendEvent(s.services, ref, event.eventId);
    expect((await apiErrorOf(() => resendEvent(s.services, ref, event.eventId))).status).toBe(429);
    const manual = await listDeliveries(s.services.db, { endpointId: endpoint.id, limit: 1000 });
    expect(manual.filter((m) => m.manual)).toHaveLength(resendLimit.limit + half);
  });

  test("the 60 per hour are counted per account apart from the deliveries: removing and re-adding an endpoint does not reset them", async () => {
    const s = await setup();
    const first = await registerVerified(s, ok, `/gone-${crypto.randomUUID()}`);
    const event = await raiseBalance(s);
    for (let i = 0; i < resendLimit.limit; i++) {
      await resendEvent(s.services, { endpointId: first.endpoint.id }, event.eventId);
    }
    // Removal deletes the endpoint's deliveries, the manual ones included.
    await removeEndpoint(s.services.db, { endpointId: first.endpoint.id });
    s.clock.advance(60_000);
    const again = await registerVerified(s, ok, `/back-${crypto.randomUUID()}`);
    const refused = await apiErrorOf(() =>
      resendEvent(s.services, { endpointId: again.endpoint.id }, event.eventId),
    );
    expect([refused.status, refused.code]).toEqual([429, "rate_limited"]);
    expect(refused.headers["Retry-After"]).toBe(String(59 * 60));
  });
});

describe("retry now", () => {
  test("brings a pending delivery's next attempt forward to now; a delivery that is not pending answers 409", async () => {
    const failing = startReceiver(
      (await testCertificates()).cert,
      acceptVerification(() => new Response(null, { status: 503 })),
    );
    cleanups.push(() => failing.stop());
    const s = await setup();
    await registerVerified(s, failing);
    const d = dispatcher(s);
    const event = await raiseBalance(s);
    expect(await d.runDue()).toBe(1);
    const deliveryId = event.deliveryIds[0] as string;
    const waiting = await getDelivery(s.services.db, deliveryId);
    expect(waiting?.nextAttemptAt).toBe(new Date(s.clock.now().getTime() + 60_000).toISOString());
    expect(await d.runDue()).toBe(0);
    s.clock.advance(5_000);
    const retried = await retryDeliveryNow(s.services, { deliveryId });
    expect(retried.nextAttemptAt).toBe(s.clock.now().toISOString());
    expect(await d.runDue()).toBe(1);
    expect((await getDelivery(s.services.db, deliveryId))?.attempts).toHaveLength(2);

    const good = await setup();
    await registerVerified(good, ok, `/rn-${crypto.randomUUID()}`);
    const gd = dispatcher(good);
    const done = await raiseBalance(good);
    await gd.runDue();
    const refused = await apiErrorOf(() =>
      retryDeliveryNow(good.services, { deliveryId: done.deliveryIds[0] as string }),
    );
    expect([refused.status, refused.code]).toEqual([409, "invalid_state"]);
    expect(refused.message).toContain("succeeded");
    const foreign = await apiErrorOf(() =>
      retryDeliveryNow(good.services, { deliveryId, serviceAccountId: good.accountId }),
    );
    expect(foreign.status).toBe(404);
  });
});

describe("event-type filter per endpoint", () => {
  test("a filtered endpoint gets only its types; webhook.verify and webhook.test still arrive; an unfiltered one gets all", async () => {
    const s = await setup();
    const path = `/filtered-${crypto.randomUUID()}`;
    const allPath = `/all-${crypto.randomUUID()}`;
    const registered = await registerEndpoint(s.ctx, {
      serviceAccountId: s.accountId,
      url: ok.url(path),
      eventTypes: ["account.balance.updated"],
    });
    expect(registered.endpoint.eventTypes).toEqual(["account.balance.updated"]);
    // registerVerified registers a second endpoint; verify the filtered one by its code too.
    await sendVerificationCode(s.ctx, { endpointId: registered.endpoint.id });
    const verifyBody = JSON.parse(received(ok, path, "webhook.verify")[0]?.body ?? "{}");
    await verifyEndpoint(s.ctx, { endpointId: registered.endpoint.id }, verifyBody.data.code);
    await testEndpoint(s.ctx, { endpointId: registered.endpoint.id });
    const all = await registerVerified(s, ok, allPath);
    expect(all.endpoint.eventTypes).toBeNull();
    const d = dispatcher(s);
    await raiseTransactions(s);
    await raiseBalance(s);
    await d.runDue();
    expect(received(ok, path).map((r) => JSON.parse(r.body).type)).toEqual([
      "webhook.verify",
      "webhook.test",
      "account.balance.updated",
    ]);
    expect(received(ok, allPath, "account.transactions.available")).toHaveLength(1);
    expect(received(ok, allPath, "account.balance.updated")).toHaveLength(1);

    // Changing the filter applies to events raised afterwards; null means all again.
    const changed = await updateEndpoint(
      s.services,
      { endpointId: registered.endpoint.id },
      { eventTypes: null },
    );
    expect(changed.eventTypes).toBeNull();
    await raiseTransactions(s);
    await d.runDue();
    expect(received(ok, path, "account.transactions.available")).toHaveLength(1);
  });

  test("unknown types and webhook.verify/webhook.test in the list are refused with a 400 naming them", async () => {
    const s = await setup();
    const cases: [string[], string][] = [
      [
        ["account.balance.updated", "account.nope", "bogus"],
        "Unknown event types account.nope, bogus",
      ],
      [["webhook.test"], "webhook.test always reach the endpoint"],
      [[], "at least one event type"],
    ];
    for (const [eventTypes, message] of cases) {
      const error = await apiErrorOf(() =>
        registerEndpoint(s.ctx, { serviceAccountId: s.accountId, url: ok.url("/x"), eventTypes }),
      );
      expect([error.status, error.code]).toEqual([400, "invalid_request"]);
      expect(error.message).toContain(message);
    }
  });
});
