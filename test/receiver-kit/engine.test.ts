// The receiver kit against the real delivery engine: `startService` runs the real HTTP
// server and dispatcher; the kit's receiver listens over HTTPS on loopback with a certificate
// from the tests' own CA (trusted by the service through deliveryCaFile). Real events come from
// the sandbox bank and real syncs; the receiver verifies them, answers, reads /v1 and stores each
// transaction once. Captured deliveries are then tampered with, replayed, re-timed and signed
// with the wrong secret.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Server } from "bun";
import { and, asc, eq } from "drizzle-orm";
import { createReceiver, type Receiver } from "../../examples/receiver/receiver.ts";
import { openReceiverStore, type ReceiverStore } from "../../examples/receiver/store.ts";
import type { SvcEvent } from "../../examples/receiver/verify.ts";
import { connectSandbox } from "../../src/banking/sandbox/connect.ts";
import { syncConnection } from "../../src/banking/sync.ts";
import { createApiKey } from "../../src/keys/api-keys.ts";
import { type RunningService, startService } from "../../src/server/runtime.ts";
import { deliveryHeaders } from "../../src/webhooks/delivery/signing.ts";
import { sendVerificationCode, verifyEndpoint } from "../../src/webhooks/delivery/verification.ts";
import { listDeliveries } from "../../src/webhooks/delivery-log/log.ts";
import {
  registerEndpoint,
  rotateEndpointSecret,
} from "../../src/webhooks/endpoints/registration.ts";
import { makeTempDir } from "../support/temp.ts";
import { waitUntil } from "../support/wait.ts";
import { createWebhookSetup, testCertificates, type WebhookSetup } from "../support/webhooks.ts";

interface Captured {
  headers: Headers;
  body: Uint8Array<ArrayBuffer>;
  /** What the kit answered. */
  status: number;
  event: { id: string; type: string };
}

let setup: WebhookSetup;
let running: RunningService;
let https: Server<undefined>;
let store: ReceiverStore;
let receiver: Receiver;
let apiBase: string;
let apiKey: string;
let endpointId: string;
let secret: string;
let connectionId: string;
let accountIds: string[];
const captured: Captured[] = [];
const processed: SvcEvent[] = [];
const storedTransactions: { accountId: string; id: string }[] = [];
const receiverLog: string[] = [];
/** Set by a test to replace what the receiver's server answers (after the kit has answered). */
let answerInstead: ((kitStatus: number) => number | undefined) | undefined;

function newReceiver(withSecret: string): Receiver {
  return createReceiver({
    secret: withSecret,
    apiBase,
    apiKey,
    store,
    now: () => setup.clock.now().getTime(),
    log: (line) => receiverLog.push(line),
    onEvent: (event) => processed.push(event),
    onTransaction: (accountId, transaction) =>
      storedTransactions.push({ accountId, id: transaction.transaction_id }),
    retryDelaysMs: [50],
  });
}

/** Waits until no delivery of the account is pending and the receiver has done its work. */
async function settle(): Promise<void> {
  await waitUntil(
    async () =>
      (
        await listDeliveries(setup.services.db, {
          serviceAccountId: setup.accountId,
          status: "pending",
        })
      ).length === 0,
    "every delivery to finish",
  );
  await receiver.drain();
}

/** Waits until every delivery of the account has had a failed first attempt, recorded. */
async function firstAttemptsFailed(): Promise<void> {
  await waitUntil(async () => {
    const pending = await listDeliveries(setup.services.db, {
      serviceAccountId: setup.accountId,
      status: "pending",
    });
    return pending.length > 0 && pending.every((d) => d.attemptCount === 1 && !d.leaseExpiresAt);
  }, "the first attempts to fail and be recorded");
}

/** Sends a captured delivery again, straight to the kit's handler, with changes. */
function replay(
  delivery: Captured,
  changes: { headers?: Record<string, string>; body?: Uint8Array<ArrayBuffer> } = {},
): Promise<Response> {
  const headers = new Headers(delivery.headers);
  for (const [name, value] of Object.entries(changes.headers ?? {})) headers.set(name, value);
  return receiver.handle(
    new Request("https://receiver.example.test/hooks", {
      method: "POST",
      headers,
      body: changes.body ?? delivery.body,
    }),
  );
}

const processedCount = (eventId: string) => processed.filter((e) => e.id === eventId).length;
const capturedOf = (type: string) => captured.filter((c) => c.event.type === type);

async function bookedTransactionIds(accountId: string): Promise<string[]> {
  const { db } = setup.services;
  const { transactions } = db.t;
  const rows = await db
    .select({ id: transactions.id })
    .from(transactions)
    .where(and(eq(transactions.accountId, accountId), eq(transactions.status, "booked")))
    .orderBy(asc(transactions.id));
  return rows.map((row) => row.id);
}

beforeAll(async () => {
  const { cert } = await testCertificates();
  setup = await createWebhookSetup({ config: { host: "127.0.0.1", port: 0 } });
  running = await startService(setup.services);
  apiBase = running.url.toString().replace(/\/$/, "");
  apiKey = (
    await createApiKey(setup.services.db, setup.clock, {
      serviceAccountId: setup.accountId,
      name: "receiver",
    })
  ).key;
  store = openReceiverStore(join(makeTempDir("svc-receiver"), "receiver.db"));
  https = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    tls: { cert: Bun.file(cert.certFile), key: Bun.file(cert.keyFile) },
    async fetch(request) {
      const body = new Uint8Array(await request.arrayBuffer());
      const answer = await receiver.handle(
        new Request(request.url, { method: request.method, headers: request.headers, body }),
      );
      captured.push({
        headers: new Headers(request.headers),
        body,
        status: answer.status,
        event: JSON.parse(new TextDecoder().decode(body)),
      });
      const replaced = answerInstead?.(answer.status);
      return replaced === undefined ? answer : new Response(null, { status: replaced });
    },
  });
  const registered = await registerEndpoint(setup.ctx, {
    serviceAccountId: setup.accountId,
    url: `https://127.0.0.1:${https.port}/hooks`,
  });
  endpointId = registered.endpoint.id;
  secret = registered.signingSecret;
  receiver = newReceiver(secret);
});

afterAll(async () => {
  await receiver?.stop();
  await https?.stop(true);
  await running?.stop();
  store?.close();
  await setup?.close();
});

describe("receiver kit against the real delivery engine", () => {
  test("a real webhook.verify is verified and its code verifies the endpoint", async () => {
    const sent = await sendVerificationCode(setup.ctx, { endpointId });
    expect(sent).toMatchObject({ ok: true, statusCode: 200 });
    await receiver.drain();
    const verify = processed.find((e) => e.type === "webhook.verify");
    if (verify?.type !== "webhook.verify") throw new Error("no webhook.verify processed");
    expect(verify.data.endpoint_id).toBe(endpointId);
    const endpoint = await verifyEndpoint(setup.ctx, { endpointId }, verify.data.code);
    expect(endpoint.verified).toBe(true);
  });

  test("connecting the sandbox bank: each connection.status.changed is verified, processed once and followed by a /v1 read", async () => {
    const connection = await connectSandbox(setup.services, {
      serviceAccountId: setup.accountId,
      seed: 42,
    });
    connectionId = connection.id;
    accountIds = connection.accounts.map((a) => a.id);
    await settle();
    // Deliveries run concurrently, so events may arrive in any order: the receiver reads the
    // current state from /v1 instead of trusting the order.
    const statuses = processed
      .filter((e) => e.type === "connection.status.changed")
      .map((e) => (e.type === "connection.status.changed" ? e.data.status : ""));
    expect(statuses.sort()).toEqual(["awaiting_auth", "initiated", "linked"]);
    // One /v1 read after each event; what it saw depends on when the delivery came (a read after
    // the last commit sees linked), so only the count and the vocabulary are fixed.
    const reads = receiverLog.filter((line) => line.startsWith(`connection ${connectionId} is `));
    expect(reads).toHaveLength(3);
    for (const line of reads) expect(line).toMatch(/ is (initiated|awaiting_auth|linked)$/);
    expect(capturedOf("connection.status.changed").map((c) => c.status)).toEqual([200, 200, 200]);
  });

  test("after account.transactions.available the receiver reads /v1 and stores every booked transaction exactly once", async () => {
    const first = await syncConnection(setup.services, connectionId, {
      trigger: "cli",
      force: true,
    });
    expect(first.outcome).toBe("succeeded");
    await settle();
    const available = processed.filter((e) => e.type === "account.transactions.available");
    expect(available.map((e) => e.data.account_id).sort()).toEqual([...accountIds].sort());
    const booked = (await Promise.all(accountIds.map(bookedTransactionIds))).flat();
    expect(booked.length).toBeGreaterThan(50);
    for (const accountId of accountIds) {
      const booked = await bookedTransactionIds(accountId);
      expect(booked.length).toBeGreaterThan(0);
      const stored = store.transactions(accountId).map((t) => t.transaction_id as string);
      expect(stored.sort()).toEqual(booked);
    }

    // The bank moves on; the next sync brings new transactions, and only those are stored.
    const before = storedTransactions.length;
    setup.clock.advance(6 * 60 * 60_000);
    const second = await syncConnection(setup.services, connectionId, {
      trigger: "cli",
      force: true,
    });
    expect(second.outcome).toBe("succeeded");
    await settle();
    const added = storedTransactions.slice(before);
    expect(added.length).toBeGreaterThan(0);
    for (const accountId of accountIds) {
      expect(
        store
          .transactions(accountId)
          .map((t) => t.transaction_id as string)
          .sort(),
      ).toEqual(await bookedTransactionIds(accountId));
    }
    // Each transaction id reached the application once, across both syncs and every re-read.
    const ids = storedTransactions.map((t) => t.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  test("a replay of a captured delivery inside the 5 minutes is answered 200 and not acted on again", async () => {
    const original = capturedOf("account.transactions.available").at(-1) as Captured;
    const times = processedCount(original.event.id);
    expect(times).toBe(1);
    const response = await replay(original);
    expect(response.status).toBe(200);
    await receiver.drain();
    expect(processedCount(original.event.id)).toBe(1);
  });

  test("tampered deliveries are rejected: a changed byte, re-serialised JSON, another event's body, another event's id", async () => {
    const original = capturedOf("account.transactions.available").at(-1) as Captured;
    const text = new TextDecoder().decode(original.body);
    const changedByte = new TextEncoder().encode(
      text.replace(/"new_count":(\d)/, '"new_count":9$1'),
    );
    const reserialised = new TextEncoder().encode(JSON.stringify(JSON.parse(text), null, 2));
    const otherBody = (capturedOf("account.balance.updated").at(-1) as Captured).body;
    for (const body of [changedByte, reserialised, otherBody]) {
      expect((await replay(original, { body })).status).toBe(400);
    }
    expect(
      receiverLog.filter((line) => line === "rejected a delivery: signature_mismatch"),
    ).toHaveLength(3);
    // The id header is not signed; one that differs from the signed body's id is refused.
    const otherId = (capturedOf("account.balance.updated").at(-1) as Captured).event.id;
    expect((await replay(original, { headers: { "Svc-Webhook-Id": otherId } })).status).toBe(400);
    expect(receiverLog).toContain("rejected a delivery: id_mismatch");
  });

  test("old and future timestamps are rejected, even when correctly signed", async () => {
    const original = capturedOf("account.balance.updated").at(-1) as Captured;
    const body = new TextDecoder().decode(original.body);
    const nowMs = setup.clock.now().getTime();
    for (const offsetSeconds of [-301, 301, -3600, 86_400]) {
      // Signed by the service's own signing code with the real secret: only the time is wrong.
      const headers = deliveryHeaders({
        eventId: original.event.id,
        body,
        secret,
        attemptAt: new Date(nowMs + offsetSeconds * 1000),
      });
      expect((await replay(original, { headers })).status).toBe(400);
    }
    for (const offsetSeconds of [-299, 299]) {
      const headers = deliveryHeaders({
        eventId: original.event.id,
        body,
        secret,
        attemptAt: new Date(nowMs + offsetSeconds * 1000),
      });
      expect((await replay(original, { headers })).status).toBe(200);
    }
  });

  test("a replay after the 5 minutes, or with a fresh timestamp on the old signature, is rejected", async () => {
    const original = capturedOf("account.balance.updated").at(-1) as Captured;
    const fresh = String(Number(original.headers.get("Svc-Webhook-Timestamp")) + 60);
    expect((await replay(original, { headers: { "Svc-Webhook-Timestamp": fresh } })).status).toBe(
      400,
    );
    expect(receiverLog.at(-1)).toBe("rejected a delivery: signature_mismatch");
    setup.clock.advance(301_000);
    expect((await replay(original)).status).toBe(400);
    expect(receiverLog.at(-1)).toBe("rejected a delivery: stale_timestamp");
  });

  test("a delivery signed with another secret is rejected; the engine retries it and, once the receiver has the new secret, it is accepted", async () => {
    // Rotation: the engine signs with the new secret at once; this receiver still has the old.
    const rotated = await rotateEndpointSecret(setup.services, { endpointId });
    const before = captured.length;
    setup.clock.advance(30 * 60_000);
    await syncConnection(setup.services, connectionId, { trigger: "cli", force: true });
    await firstAttemptsFailed();
    const rejected = captured.slice(before);
    expect(rejected.every((c) => c.status === 400)).toBe(true);
    const [delivery] = await listDeliveries(setup.services.db, {
      eventId: rejected[0]?.event.id as string,
    });
    expect(delivery).toMatchObject({ status: "pending", attemptCount: 1 });
    expect(delivery?.attempts[0]).toMatchObject({ statusCode: 400, errorClass: "http_status" });

    // The receiver is given the new secret; the retry, a minute later (spec 6), gets through.
    await receiver.stop();
    secret = rotated.signingSecret;
    receiver = newReceiver(secret);
    setup.clock.advance(61_000);
    setup.services.outbox.notify();
    await settle();
    for (const { event } of rejected) expect(processedCount(event.id)).toBe(1);
  });

  test("a delivery retried after a failure is de-duplicated on the event id", async () => {
    // The kit records the event, but its 200 is lost on the way (a proxy error, say): the
    // engine sees a failure and retries with a fresh timestamp and signature.
    answerInstead = () => 502;
    const before = captured.length;
    setup.clock.advance(30 * 60_000);
    await syncConnection(setup.services, connectionId, { trigger: "cli", force: true });
    await firstAttemptsFailed();
    await receiver.drain();
    const first = captured.slice(before);
    expect(first.every((c) => c.status === 200)).toBe(true);
    const eventIds = first.map((c) => c.event.id);
    for (const id of eventIds) expect(processedCount(id)).toBe(1);

    answerInstead = undefined;
    setup.clock.advance(61_000);
    setup.services.outbox.notify();
    await settle();
    const retries = captured.slice(before + first.length);
    expect(retries.map((c) => c.event.id).sort()).toEqual([...eventIds].sort());
    for (const retry of retries) {
      const original = first.find((c) => c.event.id === retry.event.id) as Captured;
      expect(retry.status).toBe(200);
      expect(retry.headers.get("Svc-Webhook-Id")).toBe(original.headers.get("Svc-Webhook-Id"));
      expect(retry.headers.get("Svc-Webhook-Timestamp")).not.toBe(
        original.headers.get("Svc-Webhook-Timestamp"),
      );
      expect(retry.headers.get("Svc-Webhook-Signature")).not.toBe(
        original.headers.get("Svc-Webhook-Signature"),
      );
    }
    // Acted on once, though delivered twice.
    for (const id of eventIds) expect(processedCount(id)).toBe(1);
    for (const id of eventIds) {
      expect((await listDeliveries(setup.services.db, { eventId: id }))[0]).toMatchObject({
        status: "succeeded",
        attemptCount: 2,
      });
    }
  });
});
