import { afterAll, describe, expect, test } from "bun:test";
import { forwardEvent } from "../../src/listen/forward.ts";
import { verifyWebhook } from "../support/webhook-verifier.ts";

const secret = `whsec_${"k".repeat(43)}`;
const received: { headers: Record<string, string>; body: string }[] = [];
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    received.push({ headers: Object.fromEntries(request.headers), body: await request.text() });
    return new Response("ok", { status: 204 });
  },
});
afterAll(() => server.stop(true));

describe("forwarding an event", () => {
  test("the receiver verifies the POST with the listen secret, as a real delivery", async () => {
    const body =
      '{"api_version":"v1","created_at":"2026-01-01T00:00:00.000Z","data":{"account_id":"acc_1"},"id":"evt_1","type":"account.synced"}';
    const now = new Date();
    const result = await forwardEvent({
      url: new URL(`http://127.0.0.1:${server.port}/webhooks`),
      eventId: "evt_1",
      body,
      secret,
      now,
    });
    expect(result.statusCode).toBe(204);
    expect(result.error).toBeNull();
    const [request] = received;
    expect(request?.body).toBe(body);
    const verified = verifyWebhook({
      secret,
      headers: request?.headers ?? {},
      rawBody: request?.body ?? "",
      nowSeconds: Math.floor(now.getTime() / 1000),
    });
    expect(verified.ok).toBe(true);
    const wrong = verifyWebhook({
      secret: `whsec_${"z".repeat(43)}`,
      headers: request?.headers ?? {},
      rawBody: request?.body ?? "",
      nowSeconds: Math.floor(now.getTime() / 1000),
    });
    expect(wrong.ok).toBe(false);
  });

  test("a receiver that is not listening gives an error and no status", async () => {
    const closed = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
    const port = closed.port;
    closed.stop(true);
    const result = await forwardEvent({
      url: new URL(`http://127.0.0.1:${port}/`),
      eventId: "evt_2",
      body: "{}",
      secret,
      now: new Date(),
    });
    expect(result.statusCode).toBeNull();
    expect(result.error).toBeTruthy();
  });
});
