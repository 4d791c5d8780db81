// Portal webhook endpoints over real HTTP against a loopback HTTPS receiver (trusted through
// deliveryCaFile): the secret once, URL rules, the verify flow with attempts left and expiry,
// Test, rotation, state changes, the delivery log, 429 pass-through and account scoping.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { tables } from "../support/tables.ts";

const { webhookEndpoints } = tables;

import type { Services } from "../../src/server/services.ts";
import { recordAccountEvent } from "../../src/webhooks/events/write.ts";
import { createFakeClock } from "../support/fake-clock.ts";
import { type PortalClient, portalClient, signedInOwner } from "../support/portal.ts";
import { rawRecordingLogger } from "../support/raw-logger.ts";
import { type Receiver, startReceiver } from "../support/receiver.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { createTestServices } from "../support/services.ts";
import { verifyWebhook } from "../support/webhook-verifier.ts";
import { lastVerificationCode, testCertificates } from "../support/webhooks.ts";

interface EndpointView {
  id: string;
  url: string;
  description: string | null;
  status: string;
  verified: boolean;
  failureCount: number;
  disabledReason: string | null;
  disabledAt: string | null;
}
interface Verification {
  sentAt: string;
  expiresAt: string;
  attemptsLeft: number;
  usable: boolean;
}
interface Detail {
  endpoint: EndpointView;
  verification: Verification | null;
}
interface SendView {
  ok: boolean;
  statusCode: number | null;
  responseTimeMs: number;
  type: string;
}
type ErrorAnswer = { error: { code: string; message: string } };

const clock = createFakeClock();
const log = rawRecordingLogger();
let services: Services;
let server: TestServer;
let receiver: Receiver;
const secretsSeen: string[] = [];

beforeAll(async () => {
  const { pki, cert } = await testCertificates();
  services = await createTestServices({ clock, log, config: { deliveryCaFile: pki.caFile } });
  server = startTestServer(services);
  receiver = startReceiver(cert);
});
afterAll(async () => {
  await server.stop();
  await receiver.stop();
});

async function addEndpoint(client: PortalClient, path = "/hooks", description?: string) {
  const answer = await client.json<{ endpoint: EndpointView; signingSecret: string }>(
    "POST",
    "/endpoints",
    { url: receiver.url(path), ...(description ? { description } : {}) },
  );
  expect(answer.status).toBe(201);
  secretsSeen.push(answer.body.signingSecret);
  return answer.body;
}

async function verified(client: PortalClient, path = "/hooks") {
  const { endpoint, signingSecret } = await addEndpoint(client, path);
  expect((await client.request("POST", `/endpoints/${endpoint.id}/send-code`)).status).toBe(200);
  const answer = await client.json<Detail>("POST", `/endpoints/${endpoint.id}/verify`, {
    code: lastVerificationCode(receiver),
  });
  expect(answer.body.endpoint.verified).toBe(true);
  return { endpoint: answer.body.endpoint, signingSecret };
}

describe("portal: webhook endpoints", () => {
  test("adding an endpoint shows its signing secret once; later answers never hold it", async () => {
    const { client } = await signedInOwner(services, server.baseUrl);
    const created = await addEndpoint(client, "/hooks", "orders service");
    expect(created.signingSecret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(created.endpoint).toMatchObject({
      url: receiver.url("/hooks"),
      description: "orders service",
      status: "active",
      verified: false,
      failureCount: 0,
    });
    const later = [
      await client.request("GET", "/endpoints"),
      await client.request("GET", `/endpoints/${created.endpoint.id}`),
      await client.request("POST", `/endpoints/${created.endpoint.id}/pause`),
      await client.request("GET", `/endpoints/${created.endpoint.id}/deliveries`),
    ];
    for (const response of later) {
      expect(response.status).toBe(200);
      const text = await response.text();
      expect(text).not.toContain(created.signingSecret);
      expect(text).not.toMatch(/whsec_|salt|hash/i);
    }
  });

  test("URL rules are enforced with a 400 that says what is wrong", async () => {
    const { client } = await signedInOwner(services, server.baseUrl);
    const cases: [unknown, string, string][] = [
      [{ url: "http://example.com/hooks" }, "invalid_url", "must use https://"],
      [{ url: "https://user:pw@example.com/" }, "invalid_url", "user name or password"],
      [{ url: "not a url" }, "invalid_url", "not a valid absolute URL"],
      [{ url: "" }, "invalid_url", "url is required"],
      [{}, "invalid_request", "url:"],
      [{ url: receiver.url(), extra: 1 }, "invalid_request", "Unrecognized key"],
      [
        { url: receiver.url(), description: "d".repeat(201) },
        "invalid_request",
        "description must be at most 200 characters",
      ],
    ];
    for (const [body, code, message] of cases) {
      const answer = await client.json<ErrorAnswer>("POST", "/endpoints", body);
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe(code);
      expect(answer.body.error.message).toContain(message);
    }
    expect((await client.json<{ data: unknown[] }>("GET", "/endpoints")).body.data).toEqual([]);
  });

  test("without the development switch, loopback and non-443 URLs are refused at registration", async () => {
    const strict = await createTestServices({
      clock,
      config: { unsafeAllowPrivateTargets: false },
    });
    const strictServer = startTestServer(strict);
    try {
      const { client } = await signedInOwner(strict, strictServer.baseUrl);
      const loopback = await client.json<ErrorAnswer>("POST", "/endpoints", {
        url: "https://127.0.0.1/hooks",
      });
      expect(loopback.status).toBe(400);
      expect(loopback.body.error.message).toContain("loopback");
      const port = await client.json<ErrorAnswer>("POST", "/endpoints", {
        url: "https://hooks.example.com:8443/",
      });
      expect(port.body.error.message).toContain("port 443");
    } finally {
      await strictServer.stop();
      await strict.database.close();
    }
  });

  test("at most 3 endpoints per account: the fourth is refused with a message", async () => {
    const { client } = await signedInOwner(services, server.baseUrl);
    for (const path of ["/1", "/2", "/3"]) await addEndpoint(client, path);
    const fourth = await client.json<ErrorAnswer>("POST", "/endpoints", { url: receiver.url() });
    expect(fourth.status).toBe(409);
    expect(fourth.body.error.message).toContain("at most 3 webhook endpoints");
    const listed = await client.json<{ data: EndpointView[]; limits: { maxEndpoints: number } }>(
      "GET",
      "/endpoints",
    );
    expect(listed.body.data).toHaveLength(3);
    expect(listed.body.limits.maxEndpoints).toBe(3);
  });

  test("verify flow: send code, attempts left and expiry shown, a wrong code costs an attempt, the right one verifies", async () => {
    const { client } = await signedInOwner(services, server.baseUrl);
    const { endpoint } = await addEndpoint(client);
    const before = await client.json<Detail>("GET", `/endpoints/${endpoint.id}`);
    expect(before.body.verification).toBeNull();

    const sent = await client.json<{ send: SendView } & Detail>(
      "POST",
      `/endpoints/${endpoint.id}/send-code`,
    );
    expect(sent.status).toBe(200);
    expect(sent.body.send).toMatchObject({ ok: true, statusCode: 200, type: "webhook.verify" });
    expect(sent.body.verification).toEqual({
      sentAt: clock.now().toISOString(),
      expiresAt: new Date(clock.now().getTime() + 60 * 60_000).toISOString(),
      attemptsLeft: 5,
      usable: true,
    });
    const code = lastVerificationCode(receiver);
    // The code reaches only the receiver: no portal answer carries it.
    expect(JSON.stringify(sent.body)).not.toContain(code);

    const wrong = await client.json<ErrorAnswer>("POST", `/endpoints/${endpoint.id}/verify`, {
      code: code === "AAAAAAAA" ? "BBBBBBBB" : "AAAAAAAA",
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.message).toContain("4 attempts left");
    const after = await client.json<Detail>("GET", `/endpoints/${endpoint.id}`);
    expect(after.body.verification?.attemptsLeft).toBe(4);

    const empty = await client.json<ErrorAnswer>("POST", `/endpoints/${endpoint.id}/verify`, {
      code: " ",
    });
    expect(empty.status).toBe(400);
    expect(empty.body.error.message).toBe("code: enter the code");

    const right = await client.json<Detail>("POST", `/endpoints/${endpoint.id}/verify`, {
      code: code.toLowerCase(),
    });
    expect(right.status).toBe(200);
    expect(right.body.endpoint.verified).toBe(true);
    expect((await client.json<Detail>("GET", `/endpoints/${endpoint.id}`)).body.verification).toBe(
      null,
    );
  });

  test("an expired code is refused and the detail says it is no longer usable", async () => {
    const { client } = await signedInOwner(services, server.baseUrl);
    const { endpoint } = await addEndpoint(client);
    await client.request("POST", `/endpoints/${endpoint.id}/send-code`);
    const code = lastVerificationCode(receiver);
    clock.advance(60 * 60_000);
    const detail = await client.json<Detail>("GET", `/endpoints/${endpoint.id}`);
    expect(detail.body.verification).toMatchObject({ attemptsLeft: 5, usable: false });
    const late = await client.json<ErrorAnswer>("POST", `/endpoints/${endpoint.id}/verify`, {
      code,
    });
    expect(late.status).toBe(410);
    expect(late.body.error.message).toContain("expired");
  });

  test("Test answers the receiver's status code and time; a failing receiver's status is shown too", async () => {
    const { client } = await signedInOwner(services, server.baseUrl);
    const { endpoint } = await addEndpoint(client);
    const ok = await client.json<SendView>("POST", `/endpoints/${endpoint.id}/test`);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ ok: true, statusCode: 200, type: "webhook.test" });
    expect(ok.body.responseTimeMs).toBeGreaterThanOrEqual(0);
    receiver.respond(() => new Response("no", { status: 503 }));
    try {
      const failed = await client.json<SendView>("POST", `/endpoints/${endpoint.id}/test`);
      expect(failed.status).toBe(200);
      expect(failed.body).toMatchObject({ ok: false, statusCode: 503 });
    } finally {
      receiver.respond(() => new Response(null, { status: 200 }));
    }
  });

  test("rotating the secret answers the new one once; the next send is signed with it", async () => {
    const { client } = await signedInOwner(services, server.baseUrl);
    const { endpoint, signingSecret } = await addEndpoint(client);
    const rotated = await client.json<{ endpoint: EndpointView; signingSecret: string }>(
      "POST",
      `/endpoints/${endpoint.id}/rotate-secret`,
    );
    expect(rotated.status).toBe(200);
    secretsSeen.push(rotated.body.signingSecret);
    expect(rotated.body.signingSecret).toMatch(/^whsec_/);
    expect(rotated.body.signingSecret).not.toBe(signingSecret);
    await client.request("POST", `/endpoints/${endpoint.id}/test`);
    const request = receiver.requests.at(-1);
    const check = (secret: string) =>
      verifyWebhook({
        secret,
        headers: request?.headers ?? {},
        rawBody: request?.body ?? "",
        nowSeconds: Math.floor(clock.now().getTime() / 1000),
      }).ok;
    expect(check(rotated.body.signingSecret)).toBe(true);
    expect(check(signingSecret)).toBe(false);
    const text = await (await client.request("GET", `/endpoints/${endpoint.id}`)).text();
    expect(text).not.toContain(rotated.body.signingSecret);
  });

  test("pause, resume, enable and remove change the state, and refuse a wrong starting state", async () => {
    const { client } = await signedInOwner(services, server.baseUrl);
    const { endpoint } = await addEndpoint(client);
    const path = `/endpoints/${endpoint.id}`;
    const paused = await client.json<{ endpoint: EndpointView }>("POST", `${path}/pause`);
    expect(paused.body.endpoint.status).toBe("paused");
    const again = await client.json<ErrorAnswer>("POST", `${path}/pause`);
    expect(again.status).toBe(409);
    expect(again.body.error.message).toContain("is paused");
    expect(
      (await client.json<{ endpoint: EndpointView }>("POST", `${path}/resume`)).body.endpoint
        .status,
    ).toBe("active");
    const notDisabled = await client.json<ErrorAnswer>("POST", `${path}/enable`);
    expect(notDisabled.status).toBe(409);

    // Disabled after 20 failures (the dispatcher's rule, proven in its own tests): Enable
    // clears the state and the count.
    await services.db.write((tx) =>
      tx
        .update(webhookEndpoints)
        .set({
          status: "disabled",
          failureCount: 20,
          disabledReason: "20 consecutive failed deliveries",
          disabledAt: clock.now(),
        })
        .where(eq(webhookEndpoints.id, endpoint.id)),
    );
    const disabled = await client.json<Detail>("GET", path);
    expect(disabled.body.endpoint).toMatchObject({
      status: "disabled",
      failureCount: 20,
      disabledReason: "20 consecutive failed deliveries",
      disabledAt: clock.now().toISOString(),
    });
    const enabled = await client.json<{ endpoint: EndpointView }>("POST", `${path}/enable`);
    expect(enabled.body.endpoint).toMatchObject({
      status: "active",
      failureCount: 0,
      disabledReason: null,
      disabledAt: null,
    });

    expect((await client.json("DELETE", path)).body).toEqual({ id: endpoint.id, removed: true });
    expect((await client.request("GET", path)).status).toBe(404);
  });

  test("the delivery log lists each delivery with its attempts and next retry, filtered by outcome", async () => {
    const { client, accountId } = await signedInOwner(services, server.baseUrl);
    const { endpoint } = await verified(client);
    await client.request("POST", `/endpoints/${endpoint.id}/test`);
    // An account event waiting for its first attempt (no dispatcher runs in this server).
    await services.db.write((tx) =>
      recordAccountEvent(tx, clock, {
        serviceAccountId: accountId,
        type: "account.balance.updated",
        data: {
          account_id: crypto.randomUUID(),
          fetched_at: clock.now().toISOString(),
        },
      }),
    );
    type Delivery = {
      eventType: string;
      status: string;
      nextAttemptAt: string | null;
      attempts: { at: string; statusCode: number | null; durationMs: number; outcome: string }[];
    };
    const all = await client.json<{ data: Delivery[] }>(
      "GET",
      `/endpoints/${endpoint.id}/deliveries`,
    );
    expect(all.body.data.map((d) => d.eventType).sort()).toEqual([
      "account.balance.updated",
      "webhook.test",
      "webhook.verify",
    ]);
    const pending = await client.json<{ data: Delivery[] }>(
      "GET",
      `/endpoints/${endpoint.id}/deliveries?outcome=pending`,
    );
    expect(pending.body.data).toHaveLength(1);
    expect(pending.body.data[0]).toMatchObject({
      eventType: "account.balance.updated",
      status: "pending",
      nextAttemptAt: clock.now().toISOString(),
      attempts: [],
    });
    const succeeded = await client.json<{ data: Delivery[] }>(
      "GET",
      `/endpoints/${endpoint.id}/deliveries?outcome=succeeded&limit=1`,
    );
    expect(succeeded.body.data).toHaveLength(1);
    expect(succeeded.body.data[0]?.attempts[0]).toMatchObject({
      outcome: "succeeded",
      statusCode: 200,
      at: expect.any(String),
      durationMs: expect.any(Number),
    });
    const bad = await client.json<ErrorAnswer>(
      "GET",
      `/endpoints/${endpoint.id}/deliveries?outcome=maybe`,
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toStartWith("outcome:");
  });

  test("test and verification sends beyond 10 a minute answer 429 with the feature's message", async () => {
    const { client } = await signedInOwner(services, server.baseUrl);
    const { endpoint } = await addEndpoint(client);
    for (let i = 0; i < 5; i++) {
      expect((await client.request("POST", `/endpoints/${endpoint.id}/test`)).status).toBe(200);
      expect((await client.request("POST", `/endpoints/${endpoint.id}/send-code`)).status).toBe(
        200,
      );
    }
    for (const action of ["test", "send-code"]) {
      const response = await client.request("POST", `/endpoints/${endpoint.id}/${action}`);
      expect(response.status).toBe(429);
      expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
      const body = (await response.json()) as ErrorAnswer;
      expect(body.error.code).toBe("rate_limited");
      expect(body.error.message).toContain("at most 10 per minute per account");
    }
    clock.advance(60_000);
    expect((await client.request("POST", `/endpoints/${endpoint.id}/test`)).status).toBe(200);
  });

  test("registrations beyond 10 an hour answer 429 with the feature's message", async () => {
    const { client } = await signedInOwner(services, server.baseUrl);
    for (let i = 0; i < 10; i++) {
      const { endpoint } = await addEndpoint(client, `/r${i}`);
      expect((await client.request("DELETE", `/endpoints/${endpoint.id}`)).status).toBe(200);
    }
    const response = await client.request("POST", "/endpoints", { url: receiver.url() });
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(((await response.json()) as ErrorAnswer).error.message).toContain(
      "at most 10 per hour per account",
    );
  });

  test("another account's endpoint answers 404 to every route and is left untouched", async () => {
    const a = await signedInOwner(services, server.baseUrl);
    const b = await signedInOwner(services, server.baseUrl);
    const { endpoint } = await addEndpoint(a.client);
    const path = `/endpoints/${endpoint.id}`;
    const attempts: [string, string, unknown?][] = [
      ["GET", path],
      ["GET", `${path}/deliveries`],
      ["POST", `${path}/send-code`],
      ["POST", `${path}/verify`, { code: "ABCDEFGH" }],
      ["POST", `${path}/test`],
      ["POST", `${path}/rotate-secret`],
      ["POST", `${path}/pause`],
      ["POST", `${path}/resume`],
      ["POST", `${path}/enable`],
      ["DELETE", path],
    ];
    const requestsBefore = receiver.requests.length;
    for (const [method, route, body] of attempts) {
      const answer = await b.client.json<ErrorAnswer>(method, route, body);
      expect(answer.status).toBe(404);
      expect(answer.body.error.code).toBe("not_found");
    }
    expect(receiver.requests.length).toBe(requestsBefore);
    expect((await b.client.json<{ data: unknown[] }>("GET", "/endpoints")).body.data).toEqual([]);
    const untouched = await a.client.json<Detail>("GET", path);
    expect(untouched.body.endpoint).toMatchObject({ status: "active", verified: false });
  });

  test("without a session every endpoint route answers 401", async () => {
    const anonymous = portalClient(server.baseUrl);
    const id = crypto.randomUUID();
    for (const [method, route] of [
      ["GET", "/endpoints"],
      ["POST", "/endpoints"],
      ["GET", `/endpoints/${id}`],
      ["POST", `/endpoints/${id}/test`],
      ["GET", `/endpoints/${id}/deliveries`],
      ["DELETE", `/endpoints/${id}`],
    ]) {
      expect((await anonymous.request(method as string, route as string)).status).toBe(401);
    }
  });

  test("no signing secret or verification code was ever handed to the logger", () => {
    expect(secretsSeen.length).toBeGreaterThan(5);
    const logged = log.lines.join("\n");
    for (const secret of secretsSeen) expect(logged).not.toContain(secret);
    expect(logged).not.toContain("whsec_");
    const codes = receiver.requests
      .map((r) => JSON.parse(r.body))
      .filter((event) => event.type === "webhook.verify")
      .map((event) => event.data.code as string);
    expect(codes.length).toBeGreaterThan(3);
    for (const code of codes) expect(logged).not.toContain(code);
  });
});
