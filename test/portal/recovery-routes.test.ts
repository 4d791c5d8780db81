// Portal API of Recover over real HTTP: preview, start, progress, one at a time, cancel, and
// another account's endpoint answering 404. Shapes are the portal's camelCase.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { silentLogger } from "../../src/log/log.ts";
import type { Services } from "../../src/server/services.ts";
import { createDispatcher } from "../../src/webhooks/delivery/dispatcher.ts";
import { retryDelaysMs } from "../../src/webhooks/delivery/retry-schedule.ts";
import { senderFromConfig } from "../../src/webhooks/delivery/sender.ts";
import { recordAccountEvent } from "../../src/webhooks/events/write.ts";
import { createFakeClock } from "../support/fake-clock.ts";
import { type PortalClient, portalClient, signedInOwner, testPassword } from "../support/portal.ts";
import { acceptVerification, type Receiver, startReceiver } from "../support/receiver.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { createTestServices } from "../support/services.ts";
import { lastVerificationCode, testCertificates } from "../support/webhooks.ts";

type ErrorAnswer = { error: { code: string; message: string } };
interface RecoveryView {
  id: string;
  status: string;
  total: number;
  sent: number;
  unsent: number;
  inFlight: number;
}

const clock = createFakeClock();
let services: Services;
let server: TestServer;
let receiver: Receiver;
let failing = true;

beforeAll(async () => {
  const { pki, cert } = await testCertificates();
  services = await createTestServices({ clock, config: { deliveryCaFile: pki.caFile } });
  server = startTestServer(services);
  receiver = startReceiver(
    cert,
    acceptVerification(() => new Response(null, { status: failing ? 500 : 200 })),
  );
});
afterAll(async () => {
  await server.stop();
  await receiver.stop();
});

async function verifiedEndpoint(client: PortalClient): Promise<string> {
  const created = await client.json<{ endpoint: { id: string } }>("POST", "/endpoints", {
    url: receiver.url("/recover"),
  });
  const id = created.body.endpoint.id;
  await client.request("POST", `/endpoints/${id}/send-code`);
  await client.json("POST", `/endpoints/${id}/verify`, { code: lastVerificationCode(receiver) });
  return id;
}

/** One event whose delivery fails on every attempt of the schedule: dropped. */
async function droppedEvent(accountId: string) {
  const dispatcher = createDispatcher({
    db: services.db,
    clock,
    log: silentLogger,
    masterKey: services.masterKey,
    sender: senderFromConfig(services.config, clock, { resolve: async () => ["127.0.0.1"] }),
    concurrency: 2,
    endpointConcurrency: 2,
    schedule: false,
  });
  try {
    await services.db.write((tx) =>
      recordAccountEvent(tx, clock, {
        serviceAccountId: accountId,
        type: "account.balance.updated",
        data: {
          account_id: "5b0c1f7e-8f2a-4d59-9a51-0d6f3c2b1a90",
          fetched_at: clock.now().toISOString(),
        },
      }),
    );
    await dispatcher.runDue();
    for (const delayMs of retryDelaysMs) {
      clock.advance(delayMs);
      await dispatcher.runDue();
    }
  } finally {
    await dispatcher.stop();
  }
}

describe("portal: recover", () => {
  test("preview counts, POST starts (201), a second start is 409 while it runs, GET shows progress, cancel stops it; another account gets 404", async () => {
    const owner = await signedInOwner(services, server.baseUrl);
    const endpointId = await verifiedEndpoint(owner.client);
    const since = clock.now().toISOString();
    failing = true;
    await droppedEvent(owner.accountId);
    failing = false;
    // The retries took a day and a half: the session expired meanwhile.
    const client = portalClient(server.baseUrl);
    await client.request("POST", "/session", { email: owner.email, password: testPassword });
    const base = `/endpoints/${endpointId}/recoveries`;

    const preview = await client.json<{ recoverable: number; unsent: number }>(
      "GET",
      `${base}/preview?since=${encodeURIComponent(since)}`,
    );
    expect([preview.status, preview.body.recoverable, preview.body.unsent]).toEqual([200, 1, 0]);
    const started = await client.json<{ recovery: RecoveryView }>("POST", base, { since });
    expect(started.status).toBe(201);
    expect(started.body.recovery).toMatchObject({ status: "running", total: 1, sent: 0 });
    const second = await client.json<ErrorAnswer>("POST", base, { since });
    expect([second.status, second.body.error.code]).toEqual([409, "conflict"]);
    const list = await client.json<{ data: RecoveryView[] }>("GET", base);
    expect(list.body.data.map((r) => r.id)).toEqual([started.body.recovery.id]);
    const one = await client.json<{ recovery: RecoveryView }>(
      "GET",
      `${base}/${started.body.recovery.id}`,
    );
    expect(one.body.recovery.status).toBe("running");
    const future = await client.json<ErrorAnswer>("POST", base, {
      since,
      until: new Date(clock.now().getTime() + 60_000).toISOString(),
    });
    expect([future.status, future.body.error.code]).toEqual([400, "invalid_request"]);

    const stranger = await signedInOwner(services, server.baseUrl);
    for (const [method, path] of [
      ["GET", base],
      ["GET", `${base}/preview?since=${encodeURIComponent(since)}`],
      ["POST", `${base}/cancel`],
    ] as const) {
      const refused = await stranger.client.json<ErrorAnswer>(method, path);
      expect([refused.status, refused.body.error.code]).toEqual([404, "not_found"]);
    }

    const cancelled = await client.json<{ recovery: RecoveryView }>("POST", `${base}/cancel`);
    expect([cancelled.status, cancelled.body.recovery.status]).toEqual([200, "cancelled"]);
    const bad = await client.json<ErrorAnswer>("POST", base, { since: "yesterday" });
    expect([bad.status, bad.body.error.code]).toEqual([400, "invalid_request"]);
  });
});
