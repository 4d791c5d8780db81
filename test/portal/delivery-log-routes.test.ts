// Portal API for debugging deliveries over real HTTP, with the real delivery engine
// sending to a loopback HTTPS receiver: one delivery in full (exact body, the headers each
// attempt sent), the log's filters and keyset paging per endpoint and across the account, the
// 24 h chart's hourly counts under a fake clock, and account scoping (404) on every route.
import {
  afterAll,
  afterEach,
  beforeAll,
  describe,
  expect,
  setDefaultTimeout,
  test,
} from "bun:test";
import { silentLogger } from "../../src/log/log.ts";
import type { Services } from "../../src/server/services.ts";
import { createDispatcher, type Dispatcher } from "../../src/webhooks/delivery/dispatcher.ts";
import { senderFromConfig } from "../../src/webhooks/delivery/sender.ts";
import { signatureFor } from "../../src/webhooks/delivery/signing.ts";
import { recordAccountEvent } from "../../src/webhooks/events/write.ts";
import { createFakeClock } from "../support/fake-clock.ts";
import { type PortalClient, portalClient, signedInOwner, testPassword } from "../support/portal.ts";

import { type Receiver, startReceiver } from "../support/receiver.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { createTestServices } from "../support/services.ts";
import { lastVerificationCode, testCertificates } from "../support/webhooks.ts";

interface Attempt {
  number: number;
  at: string;
  durationMs: number;
  outcome: string;
  statusCode: number | null;
  errorClass: string | null;
  requestHeaders: Record<string, string> | null;
}
interface Delivery {
  id: string;
  eventId: string;
  eventType: string;
  endpointId: string;
  kind: string;
  status: string;
  nextAttemptAt: string | null;
  attempts: Attempt[];
}
interface DeliveryDetail extends Delivery {
  body: string;
  canResend: boolean;
  canRetryNow: boolean;
}
interface Page {
  data: Delivery[];
  nextCursor: string | null;
}
interface Stats {
  from: string;
  to: string;
  buckets: { hourStart: string; succeeded: number; failed: number }[];
}
type ErrorAnswer = { error: { code: string; message: string } };

// Several real HTTPS sends per test on a shared 2-core machine.
setDefaultTimeout(30_000);

const clock = createFakeClock("2026-03-02T10:20:00.000Z");
let services: Services;
let server: TestServer;
let receiver: Receiver;
let dispatcher: Dispatcher;
/** Status the receiver answers account events with (verification and tests: always 200). */
let eventStatus = 200;

beforeAll(async () => {
  const { pki, cert } = await testCertificates();
  services = await createTestServices({ clock, config: { deliveryCaFile: pki.caFile } });
  server = startTestServer(services);
  receiver = startReceiver(cert, (request) => {
    const type = JSON.parse(request.body).type as string;
    return new Response(null, { status: type.startsWith("webhook.") ? 200 : eventStatus });
  });
  dispatcher = createDispatcher({
    db: services.db,
    clock,
    log: silentLogger,
    masterKey: services.masterKey,
    sender: senderFromConfig(services.config, clock, { resolve: async () => ["127.0.0.1"] }),
    concurrency: 4,
    endpointConcurrency: 4,
    schedule: false,
    stopGraceMs: 50,
  });
});
afterEach(() => {
  eventStatus = 200;
});
afterAll(async () => {
  await dispatcher.stop();
  await server.stop();
  await receiver.stop();
});

async function verifiedEndpoint(client: PortalClient, path: string) {
  const created = await client.json<{ endpoint: { id: string }; signingSecret: string }>(
    "POST",
    "/endpoints",
    { url: receiver.url(path) },
  );
  expect(created.status).toBe(201);
  const id = created.body.endpoint.id;
  expect((await client.request("POST", `/endpoints/${id}/send-code`)).status).toBe(200);
  const verified = await client.request("POST", `/endpoints/${id}/verify`, {
    code: lastVerificationCode(receiver),
  });
  expect(verified.status).toBe(200);
  return { id, signingSecret: created.body.signingSecret };
}

async function raise(
  accountId: string,
  type: "account.balance.updated" | "account.transactions.available" = "account.balance.updated",
) {
  return services.db.write((tx) =>
    type === "account.balance.updated"
      ? recordAccountEvent(tx, clock, {
          serviceAccountId: accountId,
          type,
          data: { account_id: crypto.randomUUID(), fetched_at: clock.now().toISOString() },
        })
      : recordAccountEvent(tx, clock, {
          serviceAccountId: accountId,
          type,
          data: {
            account_id: crypto.randomUUID(),
            fetched_at: clock.now().toISOString(),
            new_count: 3,
          },
        }),
  );
}

function receivedFor(path: string, eventId: string) {
  return receiver.requests.filter(
    (r) => r.path === path && r.headers["svc-webhook-id"] === eventId,
  );
}

describe("portal: one delivery in full", () => {
  test("GET …/deliveries/:deliveryId has the exact signed body and, per attempt, the Svc-Webhook-* headers actually sent, also across a secret rotation", async () => {
    const { client, accountId } = await signedInOwner(services, server.baseUrl);
    const path = `/detail-${crypto.randomUUID()}`;
    const endpoint = await verifiedEndpoint(client, path);
    const event = await raise(accountId);
    const deliveryId = event.deliveryIds[0] as string;

    eventStatus = 500;
    expect(await dispatcher.runDue()).toBe(1);
    const failedOnce = await client.json<{ delivery: DeliveryDetail }>(
      "GET",
      `/endpoints/${endpoint.id}/deliveries/${deliveryId}`,
    );
    expect(failedOnce.status).toBe(200);
    expect(failedOnce.body.delivery).toMatchObject({
      status: "pending",
      nextAttemptAt: new Date(clock.now().getTime() + 60_000).toISOString(),
      canRetryNow: true,
      canResend: true,
    });

    // A rotation between attempts: the second attempt is signed with the new secret, and the
    // first attempt still shows the signature it was sent with.
    const rotated = await client.json<{ signingSecret: string }>(
      "POST",
      `/endpoints/${endpoint.id}/rotate-secret`,
    );
    eventStatus = 200;
    clock.advance(61_000);
    expect(await dispatcher.runDue()).toBe(1);

    const answer = await client.json<{ delivery: DeliveryDetail }>(
      "GET",
      `/endpoints/${endpoint.id}/deliveries/${deliveryId}`,
    );
    const detail = answer.body.delivery;
    const sent = receivedFor(path, event.eventId);
    expect(sent).toHaveLength(2);
    expect(detail.body).toBe(sent[0]?.body as string);
    expect(detail).toMatchObject({
      id: deliveryId,
      eventId: event.eventId,
      eventType: "account.balance.updated",
      status: "succeeded",
      nextAttemptAt: null,
      canRetryNow: false,
      canResend: true,
    });
    expect(detail.attempts.map((a) => [a.number, a.outcome, a.statusCode])).toEqual([
      [1, "failed", 500],
      [2, "succeeded", 200],
    ]);
    detail.attempts.forEach((attempt, i) => {
      const headers = sent[i]?.headers as Record<string, string>;
      expect(attempt.requestHeaders).toEqual({
        "Svc-Webhook-Id": headers["svc-webhook-id"] as string,
        "Svc-Webhook-Timestamp": headers["svc-webhook-timestamp"] as string,
        "Svc-Webhook-Signature": headers["svc-webhook-signature"] as string,
      });
    });
    const [first, second] = detail.attempts;
    const timestampOf = (a: Attempt | undefined) => a?.requestHeaders?.["Svc-Webhook-Timestamp"];
    expect(first?.requestHeaders?.["Svc-Webhook-Signature"]).toBe(
      signatureFor(endpoint.signingSecret, timestampOf(first) as string, detail.body),
    );
    expect(second?.requestHeaders?.["Svc-Webhook-Signature"]).toBe(
      signatureFor(rotated.body.signingSecret, timestampOf(second) as string, detail.body),
    );
    const text = JSON.stringify(answer.body);
    expect(text).not.toContain(endpoint.signingSecret);
    expect(text).not.toContain(rotated.body.signingSecret);
    expect(text).not.toMatch(/whsec_|salt/i);
  });

  test("a webhook.verify delivery shows its body with the code masked and no signature (it would reveal the code); a webhook.test shows its headers and cannot be resent", async () => {
    const { client } = await signedInOwner(services, server.baseUrl);
    const path = `/verify-${crypto.randomUUID()}`;
    const endpoint = await verifiedEndpoint(client, path);
    const code = lastVerificationCode(receiver);
    expect((await client.request("POST", `/endpoints/${endpoint.id}/test`)).status).toBe(200);
    const log = await client.json<Page>("GET", `/endpoints/${endpoint.id}/deliveries`);
    const byType = (type: string) => log.body.data.find((d) => d.eventType === type) as Delivery;

    const verify = await client.json<{ delivery: DeliveryDetail }>(
      "GET",
      `/endpoints/${endpoint.id}/deliveries/${byType("webhook.verify").id}`,
    );
    expect(verify.status).toBe(200);
    expect(JSON.parse(verify.body.delivery.body).data.code).toBe("********");
    expect(JSON.stringify(verify.body)).not.toContain(code);
    expect(verify.body.delivery.attempts[0]?.requestHeaders).toBeNull();
    expect(verify.body.delivery.canResend).toBe(false);

    const testSend = await client.json<{ delivery: DeliveryDetail }>(
      "GET",
      `/endpoints/${endpoint.id}/deliveries/${byType("webhook.test").id}`,
    );
    const received = receivedFor(path, testSend.body.delivery.eventId)[0];
    expect(testSend.body.delivery.body).toBe(received?.body as string);
    expect(testSend.body.delivery.attempts[0]?.requestHeaders?.["Svc-Webhook-Signature"]).toBe(
      received?.headers["svc-webhook-signature"] as string,
    );
    expect(testSend.body.delivery).toMatchObject({ canResend: false, canRetryNow: false });
  });
});

describe("portal: the delivery log's filters and pages", () => {
  test("an endpoint's log filters by outcome, type and event id and pages newest first with nextCursor until null", async () => {
    const { client, accountId } = await signedInOwner(services, server.baseUrl);
    const endpoint = await verifiedEndpoint(client, `/log-${crypto.randomUUID()}`);
    const raised = [];
    for (const type of [
      "account.balance.updated",
      "account.transactions.available",
      "account.balance.updated",
    ] as const) {
      clock.advance(1_000);
      raised.push(await raise(accountId, type));
    }
    const base = `/endpoints/${endpoint.id}/deliveries`;
    const all = await client.json<Page>("GET", base);
    // 3 events, the verification send; newest first.
    expect(all.body.data.map((d) => d.eventType)).toEqual([
      "account.balance.updated",
      "account.transactions.available",
      "account.balance.updated",
      "webhook.verify",
    ]);
    expect(all.body.nextCursor).toBeNull();

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: Page } = await client.json<Page>(
        "GET",
        `${base}?limit=3${cursor ? `&before=${cursor}` : ""}`,
      );
      expect(page.status).toBe(200);
      seen.push(...page.body.data.map((d) => d.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all.body.data.map((d) => d.id));

    const typed = await client.json<Page>("GET", `${base}?type=account.balance.updated`);
    expect(typed.body.data.map((d) => d.eventId)).toEqual(
      [raised[2], raised[0]].map((r) => r?.eventId as string),
    );
    const one = await client.json<Page>("GET", `${base}?event=${raised[1]?.eventId}`);
    expect(one.body.data.map((d) => d.eventType)).toEqual(["account.transactions.available"]);
    const pending = await client.json<Page>("GET", `${base}?outcome=pending&limit=1`);
    expect(pending.body.data).toHaveLength(1);
    expect(pending.body.nextCursor).not.toBeNull();
    const succeeded = await client.json<Page>("GET", `${base}?outcome=succeeded`);
    expect(succeeded.body.data.map((d) => d.eventType)).toEqual(["webhook.verify"]);

    for (const [query, field] of [
      ["outcome=sent", "outcome"],
      ["type=account.nothing", "type"],
      ["event=abc", "event: must be an event id"],
      ["limit=0", "limit"],
      ["limit=201", "limit"],
      ["before=yesterday", "before: must be the nextCursor"],
      ["page=2", "Unrecognized key"],
    ] as const) {
      const bad = await client.json<ErrorAnswer>("GET", `${base}?${query}`);
      expect([bad.status, bad.body.error.code]).toEqual([400, "invalid_request"]);
      expect(bad.body.error.message).toContain(field);
    }
    await dispatcher.runDue();
  });

  test("GET /deliveries lists the whole account's log with the same filters, narrowed by endpoint; other accounts' deliveries never appear", async () => {
    const { client, accountId } = await signedInOwner(services, server.baseUrl);
    const a = await verifiedEndpoint(client, `/a-${crypto.randomUUID()}`);
    const b = await verifiedEndpoint(client, `/b-${crypto.randomUUID()}`);
    const stranger = await signedInOwner(services, server.baseUrl);
    await verifiedEndpoint(stranger.client, `/s-${crypto.randomUUID()}`);
    await raise(stranger.accountId);
    clock.advance(1_000);
    const event = await raise(accountId, "account.transactions.available");

    const all = await client.json<Page>("GET", "/deliveries?type=account.transactions.available");
    expect(all.status).toBe(200);
    expect(all.body.data.map((d) => [d.eventId, d.endpointId]).sort()).toEqual(
      [
        [event.eventId, a.id],
        [event.eventId, b.id],
      ].sort(),
    );
    const onlyB = await client.json<Page>("GET", `/deliveries?endpoint=${b.id}`);
    expect(new Set(onlyB.body.data.map((d) => d.endpointId))).toEqual(new Set([b.id]));
    expect(onlyB.body.data.map((d) => d.eventType)).toEqual([
      "account.transactions.available",
      "webhook.verify",
    ]);
    const everything = await client.json<Page>("GET", "/deliveries?limit=200");
    expect(everything.body.data).toHaveLength(4);
    const paged = await client.json<Page>("GET", "/deliveries?limit=3");
    const rest = await client.json<Page>(
      "GET",
      `/deliveries?limit=3&before=${paged.body.nextCursor}`,
    );
    expect([...paged.body.data, ...rest.body.data].map((d) => d.id)).toEqual(
      everything.body.data.map((d) => d.id),
    );
    expect(rest.body.nextCursor).toBeNull();
    const bad = await client.json<ErrorAnswer>("GET", "/deliveries?endpoint=nope");
    expect([bad.status, bad.body.error.message]).toEqual([
      400,
      "endpoint: must be an endpoint id (a UUID)",
    ]);
    await dispatcher.runDue();
  });
});

describe("portal: the 24 h chart", () => {
  test("GET …/delivery-stats counts attempts per UTC hour, succeeded and failed, in 24 buckets ending with the current hour, zeros included", async () => {
    clock.set("2026-03-03T06:10:00.000Z");
    const owner = await signedInOwner(services, server.baseUrl);
    const { accountId } = owner;
    let client = owner.client;
    const endpoint = await verifiedEndpoint(client, `/stats-${crypto.randomUUID()}`); // 1 success at 06:10
    eventStatus = 500;
    await raise(accountId);
    expect(await dispatcher.runDue()).toBe(1); // failed at 06:10
    clock.set("2026-03-03T08:59:59.000Z");
    expect(await dispatcher.runDue()).toBe(1); // the retry fails at 08:59:59
    eventStatus = 200;
    clock.set("2026-03-03T09:30:00.000Z");
    await raise(accountId);
    expect(await dispatcher.runDue()).toBe(2); // the retry and the new event succeed
    clock.set("2026-03-04T05:45:00.000Z");
    // A day later the first session has lapsed: sign in again.
    client = portalClient(server.baseUrl);
    await client.request("POST", "/session", { email: owner.email, password: testPassword });

    const stats = await client.json<Stats>("GET", `/endpoints/${endpoint.id}/delivery-stats`);
    expect(stats.status).toBe(200);
    expect(stats.body.from).toBe("2026-03-03T06:00:00.000Z");
    expect(stats.body.to).toBe("2026-03-04T06:00:00.000Z");
    expect(stats.body.buckets).toHaveLength(24);
    expect(stats.body.buckets[0]?.hourStart).toBe("2026-03-03T06:00:00.000Z");
    expect(stats.body.buckets[23]?.hourStart).toBe("2026-03-04T05:00:00.000Z");
    const nonZero = stats.body.buckets.filter((b) => b.succeeded + b.failed > 0);
    expect(nonZero).toEqual([
      { hourStart: "2026-03-03T06:00:00.000Z", succeeded: 1, failed: 1 },
      { hourStart: "2026-03-03T08:00:00.000Z", succeeded: 0, failed: 1 },
      { hourStart: "2026-03-03T09:00:00.000Z", succeeded: 2, failed: 0 },
    ]);

    // An hour later the 06:00 bucket has left the window.
    clock.set("2026-03-04T06:00:00.000Z");
    const later = await client.json<Stats>("GET", `/endpoints/${endpoint.id}/delivery-stats`);
    expect(later.body.buckets[0]?.hourStart).toBe("2026-03-03T07:00:00.000Z");
    expect(later.body.buckets.reduce((n, b) => n + b.succeeded + b.failed, 0)).toBe(3);

    const bad = await client.json<ErrorAnswer>(
      "GET",
      `/endpoints/${endpoint.id}/delivery-stats?hours=0`,
    );
    expect([bad.status, bad.body.error.code]).toEqual([400, "invalid_request"]);
  });
});

describe("portal: delivery routes are scoped to the account", () => {
  test("another account's endpoint or delivery answers 404 on the detail, the log, the account log's endpoint filter and the stats", async () => {
    const { client, accountId } = await signedInOwner(services, server.baseUrl);
    const endpoint = await verifiedEndpoint(client, `/own-${crypto.randomUUID()}`);
    const event = await raise(accountId);
    const deliveryId = event.deliveryIds[0] as string;
    const stranger = await signedInOwner(services, server.baseUrl);
    const theirs = await verifiedEndpoint(stranger.client, `/theirs-${crypto.randomUUID()}`);
    for (const path of [
      `/endpoints/${endpoint.id}/deliveries/${deliveryId}`,
      `/endpoints/${theirs.id}/deliveries/${deliveryId}`,
      `/endpoints/${endpoint.id}/deliveries/not-a-uuid`,
      `/endpoints/${endpoint.id}/deliveries`,
      `/endpoints/${endpoint.id}/delivery-stats`,
      `/deliveries?endpoint=${endpoint.id}`,
    ]) {
      const refused = await stranger.client.json<ErrorAnswer>("GET", path);
      expect([path, refused.status, refused.body.error.code]).toEqual([path, 404, "not_found"]);
    }
    const own = await stranger.client.json<Page>("GET", "/deliveries");
    expect(own.body.data.some((d) => d.id === deliveryId)).toBe(false);
    await dispatcher.runDue();
  });
});
