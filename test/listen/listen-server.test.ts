// svc listen against a real server: `--events` narrows the stream to the listed
// types, and what reaches the local receiver is signed exactly as deliveries are.
import { afterAll, expect, test } from "bun:test";
import { runListen } from "../../src/listen/listen.ts";
import { recordAccountEvents } from "../../src/webhooks/events/write.ts";
import { startApiHarness } from "../support/api.ts";
import { waitUntil } from "../support/wait.ts";
import { verifyWebhook } from "../support/webhook-verifier.ts";

const api = await startApiHarness({
  app: { eventStreams: { heartbeatMs: 50, pollMs: 100, maxPerAccount: 2 } },
});
const tenant = await api.addTenant("listen@example.com");
const received: { headers: Record<string, string>; body: string }[] = [];
const receiver = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    received.push({
      headers: Object.fromEntries(request.headers.entries()),
      body: await request.text(),
    });
    return new Response(null, { status: 204 });
  },
});
afterAll(async () => {
  receiver.stop(true);
  await api.stop();
});

async function raise(type: "account.balance.updated" | "connection.status.changed") {
  const data =
    type === "account.balance.updated"
      ? {
          account_id: tenant.bank.accountIds[0] as string,
          fetched_at: api.clock.now().toISOString(),
        }
      : {
          connection_id: tenant.bank.connectionId,
          status: "linked" as const,
          account_ids: tenant.bank.accountIds,
        };
  const [recorded] = await api.services.db.write((tx) =>
    recordAccountEvents(tx, api.clock, [
      { serviceAccountId: tenant.accountId, type, data } as never,
    ]),
  );
  api.services.outbox.notify();
  return String(recorded?.eventId);
}

test("--events forwards only the listed types, each signed with the listen secret like a delivery", async () => {
  const secret = `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url")}`;
  const stop = new AbortController();
  const notices: string[] = [];
  const lines: string[] = [];
  const run = runListen(
    {
      apiUrl: new URL(api.server.baseUrl),
      apiKey: tenant.key,
      forwardTo: new URL(`http://127.0.0.1:${receiver.port}/webhooks`),
      types: ["connection.status.changed"],
      secret,
    },
    {
      now: () => new Date(),
      onForwarded: (event) => lines.push(`${event.type} ${event.id} ${event.result.statusCode}`),
      notice: (line) => notices.push(line),
      signal: stop.signal,
    },
  );
  await waitUntil(
    () => notices.some((line) => line.includes("waiting for events")),
    "svc listen to connect",
  );
  // A balance event between two status events: the stream is in order, so had it been
  // forwarded it would have arrived before the second status event.
  const first = await raise("connection.status.changed");
  await raise("account.balance.updated");
  const second = await raise("connection.status.changed");
  await waitUntil(() => received.length >= 2, "two forwarded events");
  stop.abort();
  await run;
  expect(received.map((r) => JSON.parse(r.body).id)).toEqual([first, second]);
  expect(lines).toEqual([
    `connection.status.changed ${first} 204`,
    `connection.status.changed ${second} 204`,
  ]);
  for (const request of received) {
    expect(
      verifyWebhook({
        secret,
        headers: request.headers,
        rawBody: request.body,
        nowSeconds: Math.floor(Date.now() / 1000),
      }).ok,
    ).toBe(true);
    expect(request.headers["svc-webhook-id"]).toBe(JSON.parse(request.body).id);
    expect(request.headers["user-agent"]).toBe("Svc-Webhooks/1");
  }
});
