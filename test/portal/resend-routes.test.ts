// Portal API of the endpoint features over real HTTP: Resend and Retry now on a
// delivery, and the event-type filter on create/update. Shapes are the portal's camelCase.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Services } from "../../src/server/services.ts";
import { resendLimit } from "../../src/webhooks/delivery-log/resend.ts";
import { recordAccountEvent } from "../../src/webhooks/events/write.ts";
import { createFakeClock } from "../support/fake-clock.ts";
import { type PortalClient, signedInOwner } from "../support/portal.ts";
import { acceptVerification, type Receiver, startReceiver } from "../support/receiver.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { createTestServices } from "../support/services.ts";
import { lastVerificationCode, testCertificates } from "../support/webhooks.ts";

interface DeliveryView {
  id: string;
  eventId: string;
  endpointId: string;
  manual: boolean;
  status: string;
  nextAttemptAt: string | null;
  attempts: unknown[];
}
interface EndpointView {
  id: string;
  eventTypes: string[] | null;
}
type ErrorAnswer = { error: { code: string; message: string } };

const clock = createFakeClock();
let services: Services;
let server: TestServer;
let receiver: Receiver;

beforeAll(async () => {
  const { pki, cert } = await testCertificates();
  services = await createTestServices({ clock, config: { deliveryCaFile: pki.caFile } });
  server = startTestServer(services);
  receiver = startReceiver(
    cert,
    acceptVerification(() => new Response(null, { status: 200 })),
  );
});
afterAll(async () => {
  await server.stop();
  await receiver.stop();
});

async function verifiedEndpoint(client: PortalClient, body: Record<string, unknown> = {}) {
  const created = await client.json<{ endpoint: EndpointView }>("POST", "/endpoints", {
    url: receiver.url("/hooks"),
    ...body,
  });
  expect(created.status).toBe(201);
  const id = created.body.endpoint.id;
  expect((await client.request("POST", `/endpoints/${id}/send-code`)).status).toBe(200);
  const verified = await client.json<{ endpoint: EndpointView }>(
    "POST",
    `/endpoints/${id}/verify`,
    { code: lastVerificationCode(receiver) },
  );
  expect(verified.status).toBe(200);
  return verified.body.endpoint;
}

async function raise(accountId: string) {
  return services.db.write((tx) =>
    recordAccountEvent(tx, clock, {
      serviceAccountId: accountId,
      type: "account.balance.updated",
      data: {
        account_id: "5b0c1f7e-8f2a-4d59-9a51-0d6f3c2b1a90",
        fetched_at: clock.now().toISOString(),
      },
    }),
  );
}

describe("portal: resend and retry now", () => {
  test("POST …/deliveries/:deliveryId/resend answers 201 { delivery } for a new manual delivery of the same event; another account's delivery is 404", async () => {
    const { client, accountId } = await signedInOwner(services, server.baseUrl);
    const endpoint = await verifiedEndpoint(client);
    const event = await raise(accountId);
    const deliveryId = event.deliveryIds[0] as string;
    const answer = await client.json<{ delivery: DeliveryView }>(
      "POST",
      `/endpoints/${endpoint.id}/deliveries/${deliveryId}/resend`,
    );
    expect(answer.status).toBe(201);
    expect(answer.body.delivery).toMatchObject({
      eventId: event.eventId,
      endpointId: endpoint.id,
      manual: true,
      status: "pending",
      attempts: [],
    });
    expect(answer.body.delivery.id).not.toBe(deliveryId);

    const stranger = await signedInOwner(services, server.baseUrl);
    const strangerEndpoint = await verifiedEndpoint(stranger.client);
    for (const path of [
      `/endpoints/${endpoint.id}/deliveries/${deliveryId}/resend`,
      `/endpoints/${strangerEndpoint.id}/deliveries/${deliveryId}/resend`,
      `/endpoints/${endpoint.id}/deliveries/${deliveryId}/retry`,
    ]) {
      const refused = await stranger.client.json<ErrorAnswer>("POST", path);
      expect([refused.status, refused.body.error.code]).toEqual([404, "not_found"]);
    }
  });

  test("resend to a paused endpoint is 409 invalid_state; over 60 an hour is 429 with Retry-After", async () => {
    const { client, accountId } = await signedInOwner(services, server.baseUrl);
    const endpoint = await verifiedEndpoint(client);
    const event = await raise(accountId);
    const path = `/endpoints/${endpoint.id}/deliveries/${event.deliveryIds[0]}/resend`;
    for (let i = 0; i < resendLimit.limit; i++) {
      expect((await client.request("POST", path)).status).toBe(201);
    }
    const limited = await client.request("POST", path);
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("3600");
    const body = (await limited.json()) as ErrorAnswer;
    expect(body.error.code).toBe("rate_limited");
    expect(body.error.message).toContain("at most 60 per hour");

    expect((await client.request("POST", `/endpoints/${endpoint.id}/pause`)).status).toBe(200);
    const paused = await client.json<ErrorAnswer>("POST", path);
    expect([paused.status, paused.body.error.code]).toEqual([409, "invalid_state"]);
  });

  test("POST …/retry answers 200 { delivery } with nextAttemptAt = now; 409 when it is not pending", async () => {
    const { client, accountId } = await signedInOwner(services, server.baseUrl);
    const endpoint = await verifiedEndpoint(client);
    const event = await raise(accountId);
    const path = `/endpoints/${endpoint.id}/deliveries/${event.deliveryIds[0]}/retry`;
    clock.advance(1_000);
    const answer = await client.json<{ delivery: DeliveryView }>("POST", path);
    expect(answer.status).toBe(200);
    expect(answer.body.delivery.nextAttemptAt).toBe(clock.now().toISOString());
    // Pausing cancels the endpoint's pending deliveries (spec 6), so this one is no longer pending.
    expect((await client.request("POST", `/endpoints/${endpoint.id}/pause`)).status).toBe(200);
    const refused = await client.json<ErrorAnswer>("POST", path);
    expect([refused.status, refused.body.error.code]).toEqual([409, "invalid_state"]);
  });
});

describe("portal: event-type filter", () => {
  test("eventTypes on create and PATCH (null = all); unknown types are a 400 naming them", async () => {
    const { client } = await signedInOwner(services, server.baseUrl);
    const created = await client.json<{ endpoint: EndpointView }>("POST", "/endpoints", {
      url: receiver.url("/f"),
      eventTypes: ["connection.status.changed", "account.balance.updated"],
    });
    expect(created.status).toBe(201);
    expect(created.body.endpoint.eventTypes).toEqual([
      "account.balance.updated",
      "connection.status.changed",
    ]);
    const id = created.body.endpoint.id;
    const cleared = await client.json<{ endpoint: EndpointView }>("PATCH", `/endpoints/${id}`, {
      eventTypes: null,
    });
    expect([cleared.status, cleared.body.endpoint.eventTypes]).toEqual([200, null]);
    const bad = await client.json<ErrorAnswer>("PATCH", `/endpoints/${id}`, {
      eventTypes: ["account.balance.updated", "acount.typo"],
    });
    expect([bad.status, bad.body.error.code]).toEqual([400, "invalid_request"]);
    expect(bad.body.error.message).toContain("acount.typo");
    const listed = await client.json<{ data: EndpointView[] }>("GET", "/endpoints");
    expect(listed.body.data.find((e) => e.id === id)?.eventTypes).toBeNull();
  });
});
