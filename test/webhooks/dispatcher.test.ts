// The delivery engine (spec 3, 6, 8) against real HTTPS receivers
// on loopback, with a fake clock deciding what is due.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { eq, inArray } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { tables } from "../support/tables.ts";

const { deliveries, deliveryAttempts, mailOutbox, webhookEndpoints } = tables;

import { openDatabase } from "../../src/db/open.ts";
import { createLogger, silentLogger } from "../../src/log/log.ts";
import type { AttemptOutcome } from "../../src/webhooks/delivery/attempt-outcome.ts";
import type { ClaimedDelivery } from "../../src/webhooks/delivery/claimed-delivery.ts";
import { type ClaimRequest, claimDueDeliveries } from "../../src/webhooks/delivery/claims.ts";
import {
  createDispatcher,
  type Dispatcher,
  type DispatcherOptions,
  deliveryLeaseMs,
} from "../../src/webhooks/delivery/dispatcher.ts";
import { recordOutcomes } from "../../src/webhooks/delivery/outcomes.ts";
import { retryDelaysMs } from "../../src/webhooks/delivery/retry-schedule.ts";
import { senderFromConfig } from "../../src/webhooks/delivery/sender.ts";
import { recordAndClaim } from "../../src/webhooks/delivery/turn-transaction.ts";
import { listDeliveries } from "../../src/webhooks/delivery-log/log.ts";
import { getEndpoint } from "../../src/webhooks/endpoints/records.ts";
import {
  registerEndpoint,
  rotateEndpointSecret,
} from "../../src/webhooks/endpoints/registration.ts";
import { enableEndpoint, removeEndpoint } from "../../src/webhooks/endpoints/state.ts";
import { recordAccountEvent } from "../../src/webhooks/events/write.ts";
import { claimRequestAt, succeededAttempt } from "../support/claim-requests.ts";
import { testEngine } from "../support/engine.ts";
import { loopbackNames } from "../support/pki.ts";
import {
  acceptVerification,
  neverAnswer,
  type Receiver,
  startReceiver,
} from "../support/receiver.ts";
import { recordingDb, type Sent } from "../support/recording-db.ts";
import { verifyWebhook } from "../support/webhook-verifier.ts";
import {
  createWebhookSetup,
  registerVerified,
  testCertificates,
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

/**
 * A receiver that answers verification sends with 200 (so endpoints can be verified) and
 * everything else with `handler`.
 */
async function receiver(handler?: Parameters<typeof startReceiver>[1]) {
  const r = startReceiver((await testCertificates()).cert, handler && acceptVerification(handler));
  cleanups.push(() => r.stop());
  return r;
}

function dispatcher(
  s: WebhookSetup,
  options: Partial<DispatcherOptions> & { timeoutMs?: number } = {},
): Dispatcher {
  const { timeoutMs, ...rest } = options;
  const d = createDispatcher({
    db: s.services.db,
    clock: s.clock,
    log: silentLogger,
    masterKey: s.services.masterKey,
    sender: senderFromConfig(s.services.config, s.clock, {
      resolve: s.ctx.resolve,
      ...(timeoutMs ? { timeoutMs } : {}),
    }),
    concurrency: 16,
    endpointConcurrency: 8,
    schedule: false,
    stopGraceMs: 50,
    ...rest,
  });
  cleanups.push(() => d.stop());
  return d;
}

async function raise(s: WebhookSetup, count = 1): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const recorded = await s.services.db.write((tx) =>
      recordAccountEvent(tx, s.clock, {
        serviceAccountId: s.accountId,
        type: "account.transactions.available",
        data: { account_id: accountUuid, fetched_at: s.clock.now().toISOString(), new_count: 2 },
      }),
    );
    ids.push(recorded.eventId);
  }
  return ids;
}

/** Claims up to `limit` due deliveries at the clock's time, every endpoint with room for them. */
function claimNow(
  s: WebhookSetup,
  limit: number,
  extra: Partial<Pick<ClaimRequest, "endpointCap" | "endpointHoldCap" | "holder">> = {},
) {
  const now = s.clock.now();
  return claimDueDeliveries(s.services.db, {
    now,
    leaseUntil: new Date(now.getTime() + deliveryLeaseMs),
    limit,
    endpointRoom: () => limit,
    fullEndpoints: [],
    ...extra,
  });
}

async function endpointRow(s: WebhookSetup, id: string) {
  return (
    await s.services.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id))
  )[0];
}

describe("retries (spec 6: 1 min, 5 min, 30 min, 2 h, 12 h, 24 h after the previous attempt, then dropped)", () => {
  test("the exact schedule under a fake clock, same event id, fresh timestamp and signature each time", async () => {
    const failing = await receiver(() => new Response(null, { status: 500 }));
    const s = await setup();
    const { endpoint, signingSecret } = await registerVerified(s, failing);
    const before = failing.requests.length;
    const d = dispatcher(s);
    const start = s.clock.now().getTime();
    const [eventId] = await raise(s);
    expect(await d.runDue()).toBe(1);
    const expected = [start];
    for (const delay of retryDelaysMs) {
      s.clock.advance(delay - 1);
      expect(await d.runDue()).toBe(0);
      const [pending] = await listDeliveries(s.services.db, { eventId: eventId as string });
      expect(pending?.status).toBe("pending");
      expect(pending?.nextAttemptAt).toBe(new Date(s.clock.now().getTime() + 1).toISOString());
      s.clock.advance(1);
      expect(await d.runDue()).toBe(1);
      expected.push(s.clock.now().getTime());
    }
    const [dropped] = await listDeliveries(s.services.db, { eventId: eventId as string });
    expect(dropped?.status).toBe("dropped");
    expect(dropped?.nextAttemptAt).toBeNull();
    expect(dropped?.attempts.map((a) => new Date(a.at).getTime())).toEqual(expected);
    expect(dropped?.attempts.map((a) => a.number)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(
      dropped?.attempts.every((a) => a.statusCode === 500 && a.errorClass === "http_status"),
    ).toBe(true);
    expect(expected.map((t) => (t - start) / 60_000)).toEqual([0, 1, 6, 36, 156, 876, 2316]);

    s.clock.advance(48 * 60 * 60_000);
    expect(await d.runDue()).toBe(0);

    const sent = failing.requests.slice(before);
    expect(sent).toHaveLength(7);
    expect(new Set(sent.map((r) => r.headers["svc-webhook-id"]))).toEqual(new Set([eventId]));
    expect(new Set(sent.map((r) => r.headers["svc-webhook-timestamp"])).size).toBe(7);
    expect(new Set(sent.map((r) => r.headers["svc-webhook-signature"])).size).toBe(7);
    for (const [i, r] of sent.entries()) {
      expect(
        verifyWebhook({
          secret: signingSecret,
          headers: r.headers,
          rawBody: r.body,
          nowSeconds: Math.floor((expected[i] as number) / 1000),
        }).ok,
      ).toBe(true);
    }
    expect((await getEndpoint(s.services.db, { endpointId: endpoint.id })).failureCount).toBe(7);
  });

  test("the envelope's created_at is when the event was created, identical on every retry (spec 2)", async () => {
    const failing = await receiver(() => new Response(null, { status: 503 }));
    const s = await setup();
    await registerVerified(s, failing, "/created-at");
    const before = failing.requests.length;
    const d = dispatcher(s);
    const createdAt = s.clock.now().toISOString();
    await raise(s);
    // The first attempt a little after the event was created, then two retries hours apart.
    s.clock.advance(1_500);
    expect(await d.runDue()).toBe(1);
    for (const delay of retryDelaysMs.slice(0, 3)) {
      s.clock.advance(delay);
      expect(await d.runDue()).toBe(1);
    }
    const sent = failing.requests.slice(before);
    expect(sent).toHaveLength(4);
    // A fresh timestamp header each time, but the same signed body with the creation time.
    expect(new Set(sent.map((r) => r.headers["svc-webhook-timestamp"])).size).toBe(4);
    expect(new Set(sent.map((r) => r.body)).size).toBe(1);
    for (const r of sent) expect(JSON.parse(r.body).created_at).toBe(createdAt);
  });

  test("a success ends the delivery: no more attempts", async () => {
    const s = await setup();
    await registerVerified(s, ok, "/once");
    const d = dispatcher(s);
    const [eventId] = await raise(s);
    expect(await d.runDue()).toBe(1);
    s.clock.advance(48 * 60 * 60_000);
    expect(await d.runDue()).toBe(0);
    const [delivery] = await listDeliveries(s.services.db, { eventId: eventId as string });
    expect(delivery).toMatchObject({ status: "succeeded", attemptCount: 1, lastStatusCode: 200 });
    expect(delivery?.attempts[0]).toMatchObject({
      number: 1,
      outcome: "succeeded",
      statusCode: 200,
    });
  });
});

describe("failure streak and disabling (spec 3, 6: at 20 in a row disabled, one success resets)", () => {
  test("19 failures leave it active; the 20th disables it with reason and date, cancels pending deliveries and e-mails the owner", async () => {
    const failing = await receiver(() => new Response(null, { status: 503 }));
    const s = await setup();
    const { endpoint } = await registerVerified(s, failing);
    const d = dispatcher(s);
    await raise(s, 19);
    expect(await d.runDue()).toBe(19);
    expect(await endpointRow(s, endpoint.id)).toMatchObject({ status: "active", failureCount: 19 });
    expect(await s.services.db.select().from(mailOutbox)).toHaveLength(0);

    s.clock.advance(1000);
    await raise(s);
    expect(await d.runDue()).toBe(1);
    const disabled = await getEndpoint(s.services.db, { endpointId: endpoint.id });
    expect(disabled).toMatchObject({ status: "disabled", failureCount: 20 });
    expect(disabled.disabledReason).toContain("20 consecutive failed deliveries");
    expect(disabled.disabledReason).toContain("503");
    expect(disabled.disabledAt).toBe(s.clock.now().toISOString());
    const states = await s.services.db.select({ status: deliveries.status }).from(deliveries);
    expect(states.filter((r) => r.status === "pending")).toHaveLength(0);
    expect(states.filter((r) => r.status === "cancelled")).toHaveLength(20);
    const mail = await s.services.db.select().from(mailOutbox);
    expect(mail).toHaveLength(1);
    expect(mail[0]?.toAddress).toBe(s.ownerEmail);
    expect(mail[0]?.body).toContain(endpoint.id);

    // Sending stops: no retry goes out and new events queue nothing.
    s.clock.advance(60 * 60_000);
    expect((await raise(s)).length).toBe(1);
    expect(await d.runDue()).toBe(0);

    // Enable clears the state and the count; nothing raised meanwhile is replayed.
    expect(await enableEndpoint(s.services.db, s.clock, { endpointId: endpoint.id })).toMatchObject(
      {
        status: "active",
        failureCount: 0,
      },
    );
    expect(await d.runDue()).toBe(0);
  });

  test("one success resets the count to 0 at any point in a failure run", async () => {
    let status = 500;
    const flaky = await receiver(() => new Response(null, { status }));
    const s = await setup();
    const { endpoint } = await registerVerified(s, flaky);
    const d = dispatcher(s, { endpointConcurrency: 1 });
    await raise(s, 19);
    await d.runDue();
    expect((await endpointRow(s, endpoint.id))?.failureCount).toBe(19);
    status = 200;
    await raise(s);
    await d.runDue();
    expect(await endpointRow(s, endpoint.id)).toMatchObject({ status: "active", failureCount: 0 });
    status = 500;
    await raise(s, 19);
    await d.runDue();
    expect(await endpointRow(s, endpoint.id)).toMatchObject({ status: "active", failureCount: 19 });
  });

  test("every failure kind counts: refused, self-signed, expired, wrong name, timeout, 3xx (not followed), 4xx, 5xx", async () => {
    const { pki, cert } = await testCertificates();
    const s = await setup({ resolve: async () => ["127.0.0.1"] });
    const { endpoint } = await registerVerified(s, ok, "/kinds");
    const d = dispatcher(s, { timeoutMs: 300 });
    const serve = async (certFiles: typeof cert, handler?: Parameters<typeof startReceiver>[1]) => {
      const r = startReceiver(certFiles, handler);
      cleanups.push(() => r.stop());
      return r;
    };
    const redirect = await serve(
      cert,
      () => new Response(null, { status: 302, headers: { location: "/followed" } }),
    );
    const kinds: [string, string, string][] = [
      // Port 1 (tcpmux) has no listener here: a free port picked earlier could be taken by one of
      // the receivers started below.
      ["refused", "https://127.0.0.1:1/", "connect"],
      ["self-signed", (await serve(await pki.selfSigned(loopbackNames))).url(), "tls"],
      ["expired", (await serve(await pki.issue(loopbackNames, { expired: true }))).url(), "tls"],
      [
        "wrong name",
        `https://hooks.example.test:${(await serve(await pki.issue(["elsewhere.example.test"]))).port}/`,
        "tls",
      ],
      ["timeout", (await serve(cert, neverAnswer)).url(), "timeout"],
      ["3xx", redirect.url("/moved"), "redirect"],
      ["4xx", (await serve(cert, () => new Response(null, { status: 404 }))).url(), "http_status"],
      ["5xx", (await serve(cert, () => new Response(null, { status: 502 }))).url(), "http_status"],
    ];
    for (const [i, [kind, url, errorClass]] of kinds.entries()) {
      await s.services.db.write((tx) =>
        tx.update(webhookEndpoints).set({ url }).where(eq(webhookEndpoints.id, endpoint.id)),
      );
      const [eventId] = await raise(s);
      expect(await d.runDue()).toBe(1);
      const [delivery] = await listDeliveries(s.services.db, { eventId: eventId as string });
      expect({ kind, errorClass: delivery?.attempts[0]?.errorClass }).toEqual({ kind, errorClass });
      expect((await endpointRow(s, endpoint.id))?.failureCount).toBe(i + 1);
    }
    expect(redirect.requests.map((r) => r.path)).toEqual(["/moved"]);
  });
});

describe("claims (spec 3: only active and verified endpoints receive account events)", () => {
  test("a due delivery whose endpoint stopped being active meanwhile is cancelled by the claim, never sent", async () => {
    const s = await setup();
    const target = await receiver(() => new Response(null, { status: 200 }));
    const { endpoint } = await registerVerified(s, target);
    const before = target.requests.length;
    const [eventId] = await raise(s, 2);
    // Paused behind the state machine's back, so its pending deliveries were not cancelled.
    await s.services.db.write((tx) =>
      tx
        .update(webhookEndpoints)
        .set({ status: "paused" })
        .where(eq(webhookEndpoints.id, endpoint.id)),
    );
    expect(await claimNow(s, 10, { endpointCap: 8 })).toHaveLength(0);
    const [delivery] = await listDeliveries(s.services.db, { eventId: eventId as string });
    expect(delivery).toMatchObject({ status: "cancelled" });
    const states = await s.services.db.select({ status: deliveries.status }).from(deliveries);
    // Both events' deliveries (the verification send's row stays as it was).
    expect(states.filter((r) => r.status === "cancelled")).toHaveLength(2);
    expect(states.filter((r) => r.status === "pending")).toHaveLength(0);
    expect(target.requests.length).toBe(before);
  });

  test("a turn's claim also cancels the due deliveries of an endpoint no longer active, and returns none of them", async () => {
    const s = await setup();
    const target = await receiver(() => new Response(null, { status: 200 }));
    const { endpoint } = await registerVerified(s, target);
    const [first] = await raise(s, 1);
    const [held] = await claimNow(s, 1);
    expect(held?.eventId).toBe(first);
    const [second] = await raise(s, 1);
    await s.services.db.write((tx) =>
      tx
        .update(webhookEndpoints)
        .set({ status: "paused" })
        .where(eq(webhookEndpoints.id, endpoint.id)),
    );
    // The turn records the first delivery's success and claims the second, which is cancelled.
    const now = s.clock.now();
    const claimed = await recordAndClaim(
      { db: s.services.db, clock: s.clock, log: silentLogger },
      [succeededAttempt(held as ClaimedDelivery, now)],
      claimRequestAt(now, 8, 8),
    );
    expect(claimed).toEqual([]);
    const [done] = await listDeliveries(s.services.db, { eventId: first as string });
    const [cancelled] = await listDeliveries(s.services.db, { eventId: second as string });
    expect(done).toMatchObject({ status: "succeeded" });
    expect(cancelled).toMatchObject({ status: "cancelled" });
  });
});

describe("the failure streak across instances", () => {
  test("attempts finishing on two instances at the same moment: the streak counts every failure and disables at exactly 20, once", async () => {
    const s = await setup();
    const failing = await receiver(() => new Response(null, { status: 500 }));
    const { endpoint } = await registerVerified(s, failing);
    await raise(s, 20);
    const now = s.clock.now();
    const claimed = await claimNow(s, 20);
    expect(claimed).toHaveLength(20);
    const failed = (delivery: ClaimedDelivery): AttemptOutcome => ({
      delivery,
      result: {
        startedAt: now,
        durationMs: 3,
        ok: false,
        statusCode: 500,
        errorClass: "http_status",
        errorMessage: "HTTP 500",
      },
    });
    // A second store on the same data: another instance (or process) of the service.
    const other = openDatabase(s.services.config);
    cleanups.push(() => other.close());
    const halves = [claimed.slice(0, 10), claimed.slice(10)];
    const recorded = await Promise.all([
      recordOutcomes(s.services.db, s.clock, (halves[0] ?? []).map(failed)),
      recordOutcomes(other.db, s.clock, (halves[1] ?? []).map(failed)),
    ]);
    expect(recorded.flatMap((r) => r.disabled).map((d) => d.endpointId)).toEqual([endpoint.id]);
    const row = await endpointRow(s, endpoint.id);
    expect(row).toMatchObject({ status: "disabled", failureCount: 20 });
    const notices = await s.services.db.select().from(mailOutbox);
    expect(notices).toHaveLength(1);
  });
});

describe("rotation (spec 3: the next attempt, retries included, uses the new secret)", () => {
  test("a retry after rotation is signed with the new secret and no longer verifies with the old one", async () => {
    let status = 500;
    const r = await receiver(() => new Response(null, { status }));
    const s = await setup();
    const { endpoint, signingSecret: oldSecret } = await registerVerified(s, r);
    const d = dispatcher(s);
    const before = r.requests.length;
    await raise(s);
    await d.runDue();
    const { signingSecret: newSecret } = await rotateEndpointSecret(s.ctx, {
      endpointId: endpoint.id,
    });
    status = 200;
    s.clock.advance(60_000);
    expect(await d.runDue()).toBe(1);
    const [first, retry] = r.requests.slice(before);
    const now = Math.floor(s.clock.now().getTime() / 1000);
    const check = (req: typeof first, secret: string) =>
      verifyWebhook({
        secret,
        headers: req?.headers ?? {},
        rawBody: req?.body ?? "",
        nowSeconds: now,
      }).ok;
    expect(check(first, oldSecret)).toBe(true);
    expect(check(retry, newSecret)).toBe(true);
    expect(check(retry, oldSecret)).toBe(false);
    expect(retry?.headers["svc-webhook-id"]).toBe(first?.headers["svc-webhook-id"] as string);
  });
});

describe("SSRF at delivery time (DNS rebinding)", () => {
  test("a name that resolved public at registration and private at delivery is refused without connecting", async () => {
    let lookups = 0;
    const s = await setup({
      config: { unsafeAllowPrivateTargets: false },
      resolve: async () => (++lookups === 1 ? ["93.184.216.34"] : ["127.0.0.1"]),
    });
    const { endpoint } = await registerEndpoint(s.ctx, {
      serviceAccountId: s.accountId,
      url: "https://hooks.example.com/in",
    });
    // Verified by hand: a verification send would connect to the public address.
    await s.services.db.write((tx) =>
      tx
        .update(webhookEndpoints)
        .set({ verifiedAt: s.clock.now() })
        .where(eq(webhookEndpoints.id, endpoint.id)),
    );
    const d = dispatcher(s);
    const [eventId] = await raise(s);
    expect(await d.runDue()).toBe(1);
    const [delivery] = await listDeliveries(s.services.db, { eventId: eventId as string });
    expect(delivery?.attempts[0]).toMatchObject({
      errorClass: "blocked_address",
      statusCode: null,
    });
    expect(delivery?.attempts[0]?.error).toContain("127.0.0.1 is a loopback address");
    expect(lookups).toBe(2);
  });
});

describe("turns on SQLite", () => {
  test.skipIf(testEngine !== "sqlite")(
    "a turn records the finished attempts and claims in one write transaction, never a batch on its own",
    async () => {
      const s = await setup();
      await registerVerified(s, ok);
      const d = dispatcher(s);
      const stats = () => s.services.database.writeLockStats?.() ?? {};
      await raise(s, 3);
      expect(await d.runDue()).toBe(3);
      await raise(s, 2);
      expect(await d.runDue()).toBe(2);
      const rows = await s.services.db
        .select({ status: deliveries.status })
        .from(deliveries)
        .where(eq(deliveries.kind, "event"));
      expect(rows.map((row) => row.status)).toEqual(Array(5).fill("succeeded"));
      expect(stats().delivery_turn?.transactions).toBeGreaterThanOrEqual(1);
      expect(stats().delivery_outcomes).toBeUndefined();
    },
  );
});

describe("turns on PostgreSQL", () => {
  test.skipIf(testEngine !== "postgres")(
    "a turn whose batch holds successes only records it and claims in one transaction, and the claim sees the leases the batch ended",
    async () => {
      const s = await setup();
      await registerVerified(s, ok);
      const [firstEvent, secondEvent] = await raise(s, 2);
      // One lease per endpoint: the first delivery holds it, so a claim on its own finds no room.
      const [held] = await claimNow(s, 1, { endpointCap: 1 });
      expect(held?.eventId).toBe(firstEvent);
      expect(await claimNow(s, 1, { endpointCap: 1 })).toEqual([]);
      const now = s.clock.now();
      const request = claimRequestAt(now, 1, 1);
      const succeeded = succeededAttempt(held as ClaimedDelivery, now);
      const deps = { db: s.services.db, clock: s.clock, log: silentLogger };
      const claimed = await recordAndClaim(deps, [succeeded], request);
      expect(claimed.map((delivery) => delivery.eventId)).toEqual([secondEvent as string]);
      const rows = await s.services.db
        .select({
          eventId: deliveries.eventId,
          status: deliveries.status,
          token: deliveries.claimToken,
        })
        .from(deliveries)
        .where(inArray(deliveries.eventId, [firstEvent as string, secondEvent as string]));
      const byEvent = new Map(rows.map((row) => [row.eventId, row]));
      expect(byEvent.get(firstEvent as string)?.status).toBe("succeeded");
      expect(byEvent.get(secondEvent as string)).toMatchObject({
        status: "pending",
        token: claimed[0]?.claimToken,
      });
      // A batch with a failure is not the turn's: its streaks are decided serializable.
      await expect(
        recordAndClaim(
          deps,
          [{ ...succeeded, result: { ...succeeded.result, ok: false } }],
          undefined,
        ),
      ).rejects.toThrow("a batch with failures has a turn of its own");
    },
  );
});

describe("a turn on PostgreSQL in two round trips", () => {
  test.skipIf(testEngine !== "postgres")(
    "the batch's statement and the candidates' read leave together, then the claim's statements leave with COMMIT behind them",
    async () => {
      const s = await setup();
      await registerVerified(s, ok);
      await raise(s, 2);
      const [held] = await claimNow(s, 1);
      const now = s.clock.now();
      const sent: Sent[] = [];
      const db = recordingDb(s.services.db, sent);
      const claimed = await recordAndClaim(
        { db, clock: s.clock, log: silentLogger },
        [succeededAttempt(held as ClaimedDelivery, now)],
        claimRequestAt(now, 8, 8),
      );
      expect(claimed).toHaveLength(1);
      const dialect = new PgDialect();
      const shape = sent.map((item) =>
        item.kind === "statement"
          ? `${dialect.sqlToQuery(item.query).sql.trim().split(/\s+/).slice(0, 3).join(" ")} (after ${item.answeredBefore})`
          : item.kind,
      );
      // First round trip: nothing answered before any of them was sent. Second: sent once those
      // three were answered, COMMIT behind them, nothing after it.
      expect(shape).toEqual([
        "begin",
        "WITH batch AS (after 0)",
        "SET LOCAL enable_bitmapscan (after 0)",
        "SELECT id, endpoint_id (after 0)",
        "SET LOCAL enable_bitmapscan (after 3)",
        "SELECT pg_advisory_xact_lock(hashtext('svc_endpoint:' || (after 3)",
        "WITH free AS (after 3)",
        "commit behind",
      ]);
    },
  );
});

describe("an endpoint's cap across processes (claims.ts holdCap)", () => {
  /** A claim by process `holder` (or by one without an id) of up to `limit` deliveries. */
  function claimAs(s: WebhookSetup, holder: string | undefined, limit: number) {
    return claimNow(s, limit, {
      endpointCap: 2,
      endpointHoldCap: 4,
      ...(holder ? { holder } : {}),
    });
  }

  /** One verified endpoint with six deliveries due. */
  async function sixDue(): Promise<WebhookSetup> {
    const s = await setup();
    await registerVerified(s, ok);
    await raise(s, 6);
    return s;
  }

  test("a process alone on an endpoint holds up to its hold cap; another then gets nothing while the leases exceed the cap", async () => {
    const s = await sixDue();
    expect(await claimAs(s, "process-a", 10)).toHaveLength(4);
    expect(await claimAs(s, "process-a", 10)).toHaveLength(0);
    expect(await claimAs(s, "process-b", 10)).toHaveLength(0);
  });

  test("once another process holds leases on the endpoint, every claim keeps the endpoint's leases within the cap", async () => {
    const s = await sixDue();
    expect(await claimAs(s, "process-b", 1)).toHaveLength(1);
    expect(await claimAs(s, "process-a", 10)).toHaveLength(1);
    expect(await claimAs(s, "process-a", 10)).toHaveLength(0);
    expect(await claimAs(s, "process-b", 10)).toHaveLength(0);
  });

  test("a claim without a process id never holds more than the cap (its leases cannot be told from others')", async () => {
    const s = await sixDue();
    expect(await claimAs(s, undefined, 10)).toHaveLength(2);
    expect(await claimAs(s, undefined, 10)).toHaveLength(0);
  });
});

describe("concurrency caps", () => {
  test("a slow endpoint gets at most endpointConcurrency sends at once and does not hold up another endpoint", async () => {
    const slow = await receiver(async () => {
      await Bun.sleep(300);
      return new Response(null, { status: 200 });
    });
    const s = await setup();
    await registerVerified(s, slow, "/slow");
    await registerVerified(s, ok, "/fast");
    const okBefore = ok.requests.length;
    const d = dispatcher(s, { concurrency: 8, endpointConcurrency: 2 });
    await raise(s, 6);
    const run = d.runDue();
    await ok.waitFor(okBefore + 6, 2_000);
    // The fast endpoint got all six while the slow one was still on its first two.
    const slowEvents = slow.requests.filter((q) => JSON.parse(q.body).type !== "webhook.verify");
    expect(slowEvents.length).toBeLessThanOrEqual(2);
    await run;
    expect(slow.maxOpen()).toBe(2);
  });

  test("the per-endpoint cap holds across two instances: two dispatchers on one database never send more than endpointConcurrency to one endpoint at once", async () => {
    const slow = await receiver(async () => {
      await Bun.sleep(150);
      return new Response(null, { status: 200 });
    });
    const s = await setup();
    await registerVerified(s, slow, "/slow");
    await raise(s, 8);
    const other = openDatabase(s.services.config);
    cleanups.push(() => other.close());
    // Each with a process id, so either may hold twice the cap while alone on the endpoint.
    const first = dispatcher(s, { concurrency: 8, endpointConcurrency: 2, processId: "first" });
    const second = dispatcher(s, {
      concurrency: 8,
      endpointConcurrency: 2,
      db: other.db,
      processId: "second",
    });
    const sent = await Promise.all([first.runDue(), second.runDue()]);
    expect(sent[0] + sent[1]).toBe(8);
    expect(slow.maxOpen()).toBe(2);
  });

  test("the global cap bounds all sends in flight", async () => {
    let open = 0;
    let maxOpen = 0;
    const handler = async () => {
      open++;
      maxOpen = Math.max(maxOpen, open);
      await Bun.sleep(100);
      open--;
      return new Response(null, { status: 200 });
    };
    const a = await receiver(handler);
    const b = await receiver(handler);
    const s = await setup();
    await registerVerified(s, a);
    await registerVerified(s, b);
    const d = dispatcher(s, { concurrency: 3, endpointConcurrency: 8 });
    await raise(s, 5);
    expect(await d.runDue()).toBe(10);
    expect(maxOpen).toBe(3);
  });
});

describe("durability (claimed with a lease, at-least-once)", () => {
  test("a dispatcher that dies mid-send leaves the delivery to be re-sent once its lease runs out", async () => {
    let answer = false;
    const r = await receiver(async () => {
      if (answer) return new Response(null, { status: 200 });
      return neverAnswer({} as never);
    });
    const s = await setup();
    await registerVerified(s, r);
    const before = r.requests.length;
    const dead = dispatcher(s);
    const [eventId] = await raise(s);
    void dead.runDue();
    await r.waitFor(before + 1);
    // "Crash": the first dispatcher never records anything. A second one takes over.
    answer = true;
    const next = dispatcher(s);
    expect(await next.runDue()).toBe(0);
    s.clock.advance(deliveryLeaseMs);
    expect(await next.runDue()).toBe(1);
    const [delivery] = await listDeliveries(s.services.db, { eventId: eventId as string });
    expect(delivery).toMatchObject({ status: "succeeded", attemptCount: 1 });
    expect(r.requests.slice(before).map((q) => q.headers["svc-webhook-id"])).toEqual([
      eventId,
      eventId,
    ]);
    await dead.stop();
    expect((await listDeliveries(s.services.db, { eventId: eventId as string }))[0]?.status).toBe(
      "succeeded",
    );
  });

  test("stop releases the leases of sends still under way, so the next start sends them at once", async () => {
    const r = await receiver(neverAnswer);
    const s = await setup();
    await registerVerified(s, r);
    const before = r.requests.length;
    const first = dispatcher(s);
    const [eventId] = await raise(s);
    void first.runDue();
    await r.waitFor(before + 1);
    await first.stop();
    const row = (
      await s.services.db
        .select()
        .from(deliveries)
        .where(eq(deliveries.eventId, eventId as string))
    )[0];
    expect(row).toMatchObject({ status: "pending", attemptCount: 0, leaseExpiresAt: null });
    expect(row?.nextAttemptAt?.getTime()).toBe(s.clock.now().getTime());
    expect(
      await s.services.db
        .select()
        .from(deliveryAttempts)
        .where(eq(deliveryAttempts.deliveryId, row?.id as string)),
    ).toEqual([]);
    r.respond(() => new Response(null, { status: 200 }));
    expect(await dispatcher(s).runDue()).toBe(1);
  });

  test("fencing: a dispatcher that stalled past its lease cannot record over the attempt of the one that took the delivery over", async () => {
    let releaseFirst: (() => void) | undefined;
    let calls = 0;
    const r = await receiver(() => {
      calls++;
      if (calls > 1) return new Response(null, { status: 200 });
      // The first attempt hangs until the test lets it answer 500, after the takeover.
      return new Promise<Response>((resolve) => {
        releaseFirst = () => resolve(new Response(null, { status: 500 }));
      });
    });
    const s = await setup();
    await registerVerified(s, r);
    const before = r.requests.length;
    const stalled = dispatcher(s, { timeoutMs: 60_000 });
    const [eventId] = await raise(s);
    const stalledRun = stalled.runDue();
    await r.waitFor(before + 1);
    s.clock.advance(deliveryLeaseMs + 1);
    const takeover = dispatcher(s);
    expect(await takeover.runDue()).toBe(1);
    releaseFirst?.();
    await stalledRun;
    const [delivery] = await listDeliveries(s.services.db, { eventId: eventId as string });
    // Only the takeover's attempt is stored; the stalled 500 neither counts nor schedules a retry.
    expect(delivery).toMatchObject({ status: "succeeded", attemptCount: 1 });
    expect(delivery?.attempts.map((a) => a.statusCode)).toEqual([200]);
  });

  test("stop also releases deliveries claimed ahead of the sender that never started", async () => {
    const r = await receiver(neverAnswer);
    const s = await setup();
    await registerVerified(s, r);
    const before = r.requests.length;
    const first = dispatcher(s, { concurrency: 1, endpointConcurrency: 1 });
    const eventIds = await raise(s, 3);
    void first.runDue();
    await r.waitFor(before + 1);
    await first.stop();
    expect(r.requests.length).toBe(before + 1);
    const rows = await s.services.db
      .select()
      .from(deliveries)
      .where(inArray(deliveries.eventId, eventIds));
    expect(rows).toHaveLength(3);
    for (const row of rows) {
      expect(row).toMatchObject({ status: "pending", attemptCount: 0, leaseExpiresAt: null });
      expect(row.nextAttemptAt?.getTime()).toBe(s.clock.now().getTime());
    }
  });

  test("an endpoint removed while its delivery is under way: the late result is dropped quietly", async () => {
    let answer: (() => void) | undefined;
    const r = await receiver(
      () =>
        new Promise<Response>((resolve) => {
          answer = () => resolve(new Response(null, { status: 200 }));
        }),
    );
    const s = await setup();
    const { endpoint } = await registerVerified(s, r);
    const before = r.requests.length;
    const lines: string[] = [];
    const d = dispatcher(s, { log: createLogger({ write: (line) => lines.push(line) }) });
    await raise(s);
    const run = d.runDue();
    await r.waitFor(before + 1);
    await removeEndpoint(s.services.db, { endpointId: endpoint.id });
    answer?.();
    expect(await run).toBe(1);
    expect(await s.services.db.select().from(deliveries)).toEqual([]);
    expect(await s.services.db.select().from(deliveryAttempts)).toEqual([]);
    expect(lines.filter((line) => line.includes('"level":"error"'))).toEqual([]);
  });

  test("an event committed in this process is sent at once through the outbox signal (no tick, no runDue)", async () => {
    const s = await setup();
    await registerVerified(s, ok, "/wake");
    const before = ok.requests.length;
    const d = dispatcher(s, { outbox: s.services.outbox });
    d.start();
    await raise(s);
    s.services.outbox.notify();
    await ok.waitFor(before + 1, 2_000);
  });
});
