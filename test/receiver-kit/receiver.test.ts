// The example receiver's own rules, with a scripted /v1 (the real engine and API are in
// engine.test.ts): the inbox survives a crash, failed work is retried and done once, the read
// window follows the last read, and bad requests are refused before anything is recorded.
import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createReceiver, type Receiver } from "../../examples/receiver/receiver.ts";
import { openReceiverStore, type ReceiverStore } from "../../examples/receiver/store.ts";
import { computeSignature, type SvcEvent } from "../../examples/receiver/verify.ts";
import { makeTempDir } from "../support/temp.ts";
import { waitUntil } from "../support/wait.ts";

const secret = "whsec_receiver-unit-test-secret";
const accountId = "5b0c1f7e-8f2a-4d59-9a51-0d6f3c2b1a90";
const nowMs = Date.parse("2026-03-10T12:00:00Z");
let eventCounter = 0;

function transactionsEvent(): SvcEvent {
  eventCounter++;
  return {
    id: `0c8a4a8e-3a5e-4a57-9d4e-${String(eventCounter).padStart(12, "0")}`,
    type: "account.transactions.available",
    created_at: new Date(nowMs).toISOString(),
    api_version: "v1",
    data: { account_id: accountId, fetched_at: new Date(nowMs).toISOString(), new_count: 1 },
  };
}

/** A delivery as Svc sends it (headers signed with the secret over the exact body). */
function delivery(
  event: SvcEvent,
  options: { secret?: string; method?: string; atMs?: number } = {},
): Request {
  const body = JSON.stringify(event);
  const timestamp = String(Math.floor((options.atMs ?? nowMs) / 1000));
  return new Request("https://receiver.example.test/hooks", {
    method: options.method ?? "POST",
    headers: {
      "Content-Type": "application/json",
      "Svc-Webhook-Id": event.id,
      "Svc-Webhook-Timestamp": timestamp,
      "Svc-Webhook-Signature": computeSignature(options.secret ?? secret, timestamp, body),
    },
    ...(options.method === "GET" ? {} : { body }),
  });
}

type Api = (url: URL) => Response | Promise<Response>;

const page = (ids: string[], nextCursor: string | null = null) =>
  Response.json({
    data: ids.map((id) => ({ transaction_id: id, booking_date: "2026-03-09", status: "booked" })),
    next_cursor: nextCursor,
  });

interface Harness {
  receiver: Receiver;
  store: ReceiverStore;
  requested: URL[];
  processed: SvcEvent[];
  log: string[];
}

const open: { receiver: Receiver; store: ReceiverStore }[] = [];
afterEach(async () => {
  for (const { receiver, store } of open.splice(0)) {
    await receiver.stop();
    store.close();
  }
});

/** Starts at nowMs and moves with real time, so retry waits come due. */
function movingClock(): () => number {
  const started = Date.now();
  return () => nowMs + (Date.now() - started);
}

function harness(api: Api, options: { path?: string; now?: () => number } = {}): Harness {
  const store = openReceiverStore(options.path ?? join(makeTempDir("svc-receiver"), "r.db"));
  const requested: URL[] = [];
  const processed: SvcEvent[] = [];
  const log: string[] = [];
  const receiver = createReceiver({
    secret,
    apiBase: "https://bank-api.example.test",
    apiKey: "svk_unittest_key",
    store,
    now: options.now ?? movingClock(),
    log: (line) => log.push(line),
    onEvent: (event) => processed.push(event),
    fetch: async (url) => {
      const parsed = new URL(url);
      requested.push(parsed);
      return api(parsed);
    },
    retryDelaysMs: [20],
  });
  open.push({ receiver, store });
  return { receiver, store, requested, processed, log };
}

describe("example receiver", () => {
  test("refuses before recording: a non-POST (405), a bad signature (400), an oversized body (413)", async () => {
    const h = harness(() => page([]));
    const event = transactionsEvent();
    expect((await h.receiver.handle(delivery(event, { method: "GET" }))).status).toBe(405);
    expect((await h.receiver.handle(delivery(event, { secret: "whsec_wrong" }))).status).toBe(400);
    const big = new Request("https://receiver.example.test/hooks", {
      method: "POST",
      body: "x".repeat(1024 * 1024 + 1),
    });
    expect((await h.receiver.handle(big)).status).toBe(413);
    await h.receiver.drain();
    expect(h.requested).toHaveLength(0);
    expect(h.store.nextDue(nowMs)).toBeUndefined();
  });

  test("answers 200 once the event is recorded; a repeat of the id is answered 200 and not acted on", async () => {
    const h = harness(() => page(["t1", "t2"]));
    const event = transactionsEvent();
    expect((await h.receiver.handle(delivery(event))).status).toBe(200);
    expect((await h.receiver.handle(delivery(event))).status).toBe(200);
    await h.receiver.drain();
    expect(h.processed.map((e) => e.id)).toEqual([event.id]);
    expect(h.store.transactions(accountId).map((t) => t.transaction_id)).toEqual(["t1", "t2"]);
  });

  test("an event answered 200 survives a crash before its work: the next start does it", async () => {
    const path = join(makeTempDir("svc-receiver"), "r.db");
    let release: (() => void) | undefined;
    // The first process hangs on /v1 and then "crashes" (is abandoned with its work undone).
    const crashed = harness(
      () =>
        new Promise<Response>((resolve) => {
          release = () => resolve(new Response("gone", { status: 503 }));
        }),
      { path },
    );
    const event = transactionsEvent();
    expect((await crashed.receiver.handle(delivery(event))).status).toBe(200);
    await waitUntil(() => crashed.requested.length === 1, "the first process to start the work");

    const restarted = harness(() => page(["t9"]), { path });
    await waitUntil(
      () => restarted.processed.length === 1,
      "the restarted receiver to do the work",
    );
    expect(restarted.processed[0]?.id).toBe(event.id);
    expect(restarted.store.transactions(accountId).map((t) => t.transaction_id)).toEqual(["t9"]);
    release?.();
  });

  test("work that fails (the API answers 503) is tried again later and done once", async () => {
    let calls = 0;
    const h = harness(() => (++calls === 1 ? new Response("busy", { status: 503 }) : page(["t1"])));
    const event = transactionsEvent();
    await h.receiver.handle(delivery(event));
    await waitUntil(() => h.processed.length === 1, "the retry to succeed");
    expect(calls).toBe(2);
    expect(h.log.some((line) => line.includes("answered 503") && line.includes("try 1"))).toBe(
      true,
    );
    expect(h.processed.map((e) => e.id)).toEqual([event.id]);
  });

  test("a rate-limited read waits for Retry-After and goes on", async () => {
    let calls = 0;
    const h = harness(() =>
      ++calls === 1
        ? new Response("{}", { status: 429, headers: { "Retry-After": "0" } })
        : page(["t1"]),
    );
    await h.receiver.handle(delivery(transactionsEvent()));
    await h.receiver.drain();
    expect(calls).toBe(2);
    expect(h.processed).toHaveLength(1);
  });

  test("a 404 (the account is not visible to the key) sets the event aside instead of retrying", async () => {
    const h = harness(() => Response.json({ error: { code: "not_found" } }, { status: 404 }));
    const event = transactionsEvent();
    await h.receiver.handle(delivery(event));
    await h.receiver.drain();
    expect(h.requested).toHaveLength(1);
    expect(
      h.log.some((line) => line.startsWith(`account.transactions.available ${event.id} set aside`)),
    ).toBe(true);
    expect(h.store.nextRetryAt()).toBeUndefined();
  });

  test("reads booked transactions: the first read the whole 730 days, later reads from 7 days before the last, following cursors", async () => {
    let now = nowMs;
    const h = harness(
      (url) =>
        url.searchParams.get("from") === "2024-03-11"
          ? page(["t1", "t2"], "next-page")
          : page(["t2", "t3"]),
      { now: () => now },
    );
    await h.receiver.handle(delivery(transactionsEvent()));
    await h.receiver.drain();
    now += 2 * 86_400_000;
    await h.receiver.handle(delivery(transactionsEvent(), { atMs: now }));
    await h.receiver.drain();
    const queries = h.requested.map((url) => Object.fromEntries(url.searchParams));
    expect(h.requested.map((url) => url.pathname)).toEqual([
      `/v1/accounts/${accountId}/transactions`,
      `/v1/accounts/${accountId}/transactions`,
      `/v1/accounts/${accountId}/transactions`,
    ]);
    expect(queries).toEqual([
      { from: "2024-03-11", to: "2026-03-10", limit: "500" },
      { cursor: "next-page", limit: "500" },
      { from: "2026-03-03", to: "2026-03-12", limit: "500" },
    ]);
    expect(h.store.transactions(accountId).map((t) => t.transaction_id)).toEqual([
      "t1",
      "t2",
      "t3",
    ]);
  });
});
