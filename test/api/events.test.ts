// GET /v1/events, /v1/events/{event_id} and /v1/events/stream through real HTTP.
import { afterAll, describe, expect, test } from "bun:test";
import { updateServiceAccount } from "../../src/accounts/service-accounts.ts";
import { beforeFirstEventId } from "../../src/api/events/stream.ts";
import { revokeApiKey } from "../../src/keys/api-keys.ts";
import { readSse, type SseMessage } from "../../src/listen/sse.ts";
import { startHttpServer } from "../../src/server/server.ts";
import { webhookContext } from "../../src/webhooks/delivery/context.ts";
import { senderFromConfig } from "../../src/webhooks/delivery/sender.ts";
import { sendVerificationCode } from "../../src/webhooks/delivery/verification.ts";
import { registerEndpoint } from "../../src/webhooks/endpoints/registration.ts";
import { recordAccountEvents } from "../../src/webhooks/events/write.ts";
import { errorOf, startApiHarness, type Tenant } from "../support/api.ts";
import { startReceiver } from "../support/receiver.ts";
import { waitUntil } from "../support/wait.ts";
import { testCertificates } from "../support/webhooks.ts";

const { pki, cert } = await testCertificates();
const api = await startApiHarness({
  config: { deliveryCaFile: pki.caFile },
  app: { eventStreams: { heartbeatMs: 50, pollMs: 200, maxPerAccount: 2 } },
});
const receiver = startReceiver(cert);
afterAll(async () => {
  await receiver.stop();
  await api.stop();
});
const alice = await api.addTenant("alice@example.com");
const bob = await api.addTenant("bob@example.com");

/** Records `count` balance events for the tenant in one write (they share created_at). */
async function raise(tenant: Tenant, count = 1, type = "account.balance.updated" as const) {
  const recorded = await api.services.db.write((tx) =>
    recordAccountEvents(
      tx,
      api.clock,
      Array.from({ length: count }, () => ({
        serviceAccountId: tenant.accountId,
        type,
        data: {
          account_id: tenant.bank.accountIds[0] as string,
          fetched_at: api.clock.now().toISOString(),
        },
      })),
    ),
  );
  api.services.outbox.notify();
  return recorded;
}

async function raiseStatus(tenant: Tenant) {
  const [recorded] = await api.services.db.write((tx) =>
    recordAccountEvents(tx, api.clock, [
      {
        serviceAccountId: tenant.accountId,
        type: "connection.status.changed",
        data: {
          connection_id: tenant.bank.connectionId,
          status: "linked",
          account_ids: tenant.bank.accountIds,
        },
      },
    ]),
  );
  api.services.outbox.notify();
  return recorded as { eventId: string; body: string };
}

interface Listed {
  data: { id: string; type: string; created_at: string }[];
  next_cursor: string | null;
}

async function list(query: string, key = alice.key): Promise<Listed> {
  const response = await api.get(`/v1/events${query}`, key);
  expect(response.status).toBe(200);
  return (await response.json()) as Listed;
}

// Alice: 3 events at 09:00 (one write, same millisecond), then a status change at 09:01.
const early = await raise(alice, 3);
api.clock.advance(60_000);
const status = await raiseStatus(alice);
const bobs = await raise(bob, 1);
const aliceIds = [status.eventId, ...early.map((e) => e.eventId).reverse()];

describe("GET /v1/events", () => {
  test("lists the account's events newest first, each exactly the stored signed body", async () => {
    const response = await api.get("/v1/events", alice.key);
    const text = await response.text();
    const body = JSON.parse(text) as Listed;
    expect(body.data.map((e) => e.id)).toEqual(aliceIds);
    // The bytes of each envelope are the canonical body that was signed and sent.
    expect(text).toContain(status.body);
    for (const e of early) expect(text).toContain(e.body);
    expect(body.next_cursor).toBeNull();
  });

  test("pages with a keyset cursor without gaps or repeats across events of one millisecond", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Listed = await list(`?limit=1${cursor ? `&cursor=${cursor}` : ""}`);
      seen.push(...page.data.map((e) => e.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual(aliceIds);
  });

  test("filters by one type or a comma-separated list of types", async () => {
    expect((await list("?type=connection.status.changed")).data.map((e) => e.id)).toEqual([
      status.eventId,
    ]);
    const both = await list("?type=connection.status.changed,account.balance.updated");
    expect(both.data.map((e) => e.id)).toEqual(aliceIds);
  });

  test("created_after keeps only events strictly after the instant, offsets accepted", async () => {
    const after = await list("?created_after=2026-01-15T10:00:30%2B01:00");
    expect(after.data.map((e) => e.id)).toEqual([status.eventId]);
    const exact = await list(
      `?created_after=${encodeURIComponent(status.body.match(/"created_at":"([^"]+)"/)?.[1] ?? "")}`,
    );
    expect(exact.data).toEqual([]);
  });

  test("a cursor keeps its filters and is refused with other filters", async () => {
    const first = await list("?type=account.balance.updated&limit=2");
    expect(first.next_cursor).not.toBeNull();
    const next = await list(`?cursor=${first.next_cursor}`);
    expect(next.data.map((e) => e.type)).toEqual(["account.balance.updated"]);
    const other = await api.get(
      `/v1/events?type=connection.status.changed&cursor=${first.next_cursor}`,
      alice.key,
    );
    expect(other.status).toBe(400);
    expect((await errorOf(other)).message).toContain("cursor");
  });

  test("an unknown type or a malformed created_after is a 400 naming the parameter", async () => {
    const badType = await api.get("/v1/events?type=account.nope", alice.key);
    expect(badType.status).toBe(400);
    expect((await errorOf(badType)).message).toContain('"type"');
    for (const value of ["yesterday", "2026-01-15", "2026-01-15T09:00:00"]) {
      const bad = await api.get(`/v1/events?created_after=${value}`, alice.key);
      expect(bad.status).toBe(400);
      expect((await errorOf(bad)).message).toContain('"created_after"');
    }
  });

  test("never lists another account's events", async () => {
    const text = JSON.stringify(await list(""));
    expect(text).not.toContain(bobs[0]?.eventId as string);
  });

  test("a webhook.verify event is served with its code masked, as svc events list shows it", async () => {
    const resolve = async () => ["127.0.0.1"];
    const sender = senderFromConfig(api.services.config, api.clock, { resolve });
    const ctx = webhookContext(api.services, { resolve, sender });
    const { endpoint } = await registerEndpoint(ctx, {
      serviceAccountId: bob.accountId,
      url: receiver.url("/verify-mask"),
    });
    const sent = await sendVerificationCode(ctx, { endpointId: endpoint.id });
    sender.close();
    const delivered = JSON.parse(receiver.requests.at(-1)?.body ?? "{}");
    expect(delivered.data.code).toMatch(/^[A-Z0-9]{8}$/);
    const listed = await list("?type=webhook.verify", bob.key);
    const served = listed.data[0] as unknown as { id: string; data: { code: string } };
    expect(served.id).toBe(sent.eventId);
    expect(served.data.code).toBe("********");
    expect({ ...served, data: { ...served.data, code: "" } }).toEqual({
      ...delivered,
      data: { ...delivered.data, code: "" },
    });
  });
});

describe("GET /v1/events writes stored bytes", () => {
  test("the page is the stored envelopes byte for byte: the same text as serialising them parsed", async () => {
    await raise(alice, 2);
    const response = await api.get("/v1/events?limit=3", alice.key);
    expect(response.status).toBe(200);
    const text = await response.text();
    const listed = JSON.parse(text) as { data: unknown[]; next_cursor: string | null };
    expect(listed.data.length).toBe(3);
    expect(text).toBe(JSON.stringify(listed));
  });
});

describe("GET /v1/events/{event_id}", () => {
  test("answers the exact envelope of the account's event", async () => {
    const response = await api.get(`/v1/events/${status.eventId}`, alice.key);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(status.body);
  });

  test("answers 404 not_found alike for another account's and an unknown id", async () => {
    const foreign = await api.get(`/v1/events/${bobs[0]?.eventId}`, alice.key);
    const unknown = await api.get("/v1/events/00000000-0000-4000-8000-000000000000", alice.key);
    expect(foreign.status).toBe(404);
    expect(unknown.status).toBe(404);
    const a = await errorOf(foreign);
    const b = await errorOf(unknown);
    expect(a.code).toBe("not_found");
    expect(a.message.replace(/[0-9a-f-]{36}/, "ID")).toBe(b.message.replace(/[0-9a-f-]{36}/, "ID"));
  });
});

/**
 * Opens a stream and returns its messages as they come, and a way to close it. The server frees
 * a closed stream's place when it notices the disconnect, a moment after the client's abort: so
 * a 429 for the per-account cap is retried (for up to 10 s) unless `refusalExpected`.
 */
async function openStream(
  key: string,
  options: { query?: string; lastEventId?: string; refusalExpected?: boolean } = {},
): ReturnType<typeof openStreamOnce> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const stream = await openStreamOnce(key, options);
    if (stream.response.status !== 429 || options.refusalExpected || Date.now() > deadline)
      return stream;
    await stream.response.body?.cancel();
    await Bun.sleep(20);
  }
}

async function openStreamOnce(
  key: string,
  options: { query?: string; lastEventId?: string },
): Promise<{
  response: Response;
  /** The next event (positions, `id:` without data, are collected in `positions`). */
  next(): Promise<SseMessage>;
  comments: string[];
  positions: string[];
  close(): void;
}> {
  const controller = new AbortController();
  const response = await fetch(`${api.server.baseUrl}/v1/events/stream${options.query ?? ""}`, {
    headers: {
      Authorization: `Bearer ${key}`,
      ...(options.lastEventId ? { "Last-Event-ID": options.lastEventId } : {}),
    },
    signal: controller.signal,
  });
  const comments: string[] = [];
  const messages =
    response.status === 200 && response.body
      ? readSse(response.body, (c) => comments.push(c))
      : undefined;
  const positions: string[] = [];
  return {
    response,
    comments,
    positions,
    async next() {
      if (!messages)
        throw new Error(`the stream was refused: ${response.status} ${await response.text()}`);
      for (;;) {
        const item = await messages.next();
        if (item.done) throw new Error("the stream ended");
        if (!item.value.positionOnly) return item.value;
        positions.push(item.value.id as string);
      }
    },
    close: () => controller.abort(),
  };
}

describe("GET /v1/events/stream", () => {
  test("sends each new event of the account as id, event type and the envelope", async () => {
    const stream = await openStream(alice.key);
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get("content-type")).toStartWith("text/event-stream");
    await raise(bob);
    const [fresh] = await raise(alice);
    const message = await stream.next();
    expect(message).toEqual({
      id: fresh?.eventId,
      event: "account.balance.updated",
      data: fresh?.body as string,
    });
    stream.close();
  });

  test("resumes after Last-Event-ID with every later event once, in order", async () => {
    const stream = await openStream(alice.key, { lastEventId: early[0]?.eventId as string });
    const expected = [...aliceIds].reverse().slice(1);
    const got: string[] = [];
    while (got.length < expected.length) got.push((await stream.next()).id as string);
    expect(got).toEqual(expected.slice(0, got.length));
    stream.close();
  });

  test("takes last_event_id in the query when the header cannot be sent", async () => {
    const newest = (await list("?limit=1")).data[0]?.id as string;
    const stream = await openStream(alice.key, {
      query: `?last_event_id=${newest}&type=account.balance.updated`,
    });
    const [later] = await raise(alice);
    expect((await stream.next()).id).toBe(later?.eventId as string);
    stream.close();
  });

  test("filters by type", async () => {
    const stream = await openStream(alice.key, { query: "?type=connection.status.changed" });
    await raise(alice);
    const changed = await raiseStatus(alice);
    expect((await stream.next()).id).toBe(changed.eventId);
    stream.close();
  });

  test("refuses an unknown or another account's Last-Event-ID with 400 before streaming", async () => {
    for (const id of ["00000000-0000-4000-8000-000000000000", bobs[0]?.eventId as string]) {
      const stream = await openStream(alice.key, { lastEventId: id });
      expect(stream.response.status).toBe(400);
      expect((await errorOf(stream.response)).message).toContain("Last-Event-ID");
    }
    const malformed = await openStream(alice.key, { lastEventId: "not-an-id" });
    expect(malformed.response.status).toBe(400);
    expect((await errorOf(malformed.response)).message).toContain("Last-Event-ID");
  });

  test("sends heartbeat comments while idle", async () => {
    const stream = await openStream(bob.key);
    // Reading pulls the stream: the comments seen so far are recorded as they are parsed.
    const [fresh] = await raise(bob);
    expect((await stream.next()).id).toBe(fresh?.eventId as string);
    const reading = stream.next().catch(() => undefined);
    await waitUntil(() => stream.comments.includes("heartbeat"), "a heartbeat");
    expect(stream.comments).toContain("heartbeat");
    stream.close();
    await reading;
  });

  test("caps concurrent streams per account with 429, and a closed stream frees its place", async () => {
    const one = await openStream(alice.key);
    const two = await openStream(alice.key);
    const three = await openStream(alice.key, { refusalExpected: true });
    expect(three.response.status).toBe(429);
    expect((await errorOf(three.response)).message).toContain("event streams");
    // Another account is not affected.
    const other = await openStream(bob.key);
    expect(other.response.status).toBe(200);
    other.close();
    one.close();
    // The server notices the disconnect shortly after; then the place is free again.
    let retried = await openStream(alice.key, { refusalExpected: true });
    await waitUntil(async () => {
      if (retried.response.status === 200) return true;
      retried = await openStream(alice.key, { refusalExpected: true });
      return retried.response.status === 200;
    }, "the closed stream's place to be freed");
    expect(retried.response.status).toBe(200);
    retried.close();
    two.close();
  });

  test("needs a key like every /v1 route", async () => {
    const response = await api.get("/v1/events/stream", null);
    expect(response.status).toBe(401);
  });

  test("first tells where it starts (the newest event, or the nil UUID on an account without events); the nil UUID as Last-Event-ID resumes before the first event", async () => {
    const stream = await openStream(alice.key);
    const newest = (await list("?limit=1")).data[0]?.id as string;
    const [fresh] = await raise(alice);
    expect((await stream.next()).id).toBe(fresh?.eventId as string);
    expect(stream.positions).toEqual([newest]);
    stream.close();

    const quiet = await api.addTenant("quiet@example.com");
    const empty = await openStream(quiet.key);
    const [first] = await raise(quiet);
    expect((await empty.next()).id).toBe(first?.eventId as string);
    expect(empty.positions).toEqual([beforeFirstEventId]);
    empty.close();
    // A client that lost the connection before that event resumes from its first connection.
    const resumed = await openStream(quiet.key, { lastEventId: beforeFirstEventId });
    expect((await resumed.next()).id).toBe(first?.eventId as string);
    resumed.close();
  });
});

describe("an open stream outlives neither its key nor its account's access (spec 3)", () => {
  /** Reads until the stream ends; the last message must be stream.closed with this error. */
  async function expectClosedWith(stream: Awaited<ReturnType<typeof openStream>>, code: string) {
    const started = Date.now();
    let last: SseMessage | undefined;
    try {
      for (;;) last = await stream.next();
    } catch (error) {
      expect((error as Error).message).toBe("the stream ended");
    }
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(last?.event).toBe("stream.closed");
    expect(JSON.parse(last?.data ?? "{}").error.code).toBe(code);
  }

  test("revoking the key ends the stream promptly with stream.closed naming invalid_api_key", async () => {
    const tenant = await api.addTenant("revoked-stream@example.com");
    const stream = await openStream(tenant.key);
    await revokeApiKey(api.services.db, api.clock, tenant.keyId);
    await raise(tenant); // not sent: the key is checked before the read
    await expectClosedWith(stream, "invalid_api_key");
  });

  test("disabling the account ends it with user_inactive; a lapsed subscription with subscription_lapsed", async () => {
    const disabled = await api.addTenant("disabled-stream@example.com");
    const one = await openStream(disabled.key);
    await updateServiceAccount(api.services.db, api.clock, disabled.accountId, { disabled: true });
    await expectClosedWith(one, "user_inactive");
    const lapsed = await api.addTenant("lapsed-stream@example.com");
    const two = await openStream(lapsed.key);
    await updateServiceAccount(api.services.db, api.clock, lapsed.accountId, {
      status: "lapsed",
      subscriptionStatus: "canceled",
    });
    await expectClosedWith(two, "subscription_lapsed");
  });
});

describe("event streams at shutdown", () => {
  test("a graceful stop ends open streams instead of waiting on them", async () => {
    const services = {
      ...api.services,
      config: { ...api.services.config, host: "127.0.0.1", port: 0 },
    };
    const server = startHttpServer(services);
    const response = await fetch(new URL("/v1/events/stream", server.url), {
      headers: { Authorization: `Bearer ${alice.key}` },
    });
    expect(response.status).toBe(200);
    const body = response.text();
    await server.stop();
    // The stream ended cleanly: the client read it to its end.
    expect(await body).toStartWith(": connected");
  });
});
