// The OpenAPI `webhooks` section against real deliveries: one delivery of each of the five event
// types, sent by the real
// engine to a real HTTPS receiver on loopback, validates against the documented body and header
// schemas, and a body the spec does not allow is refused by the same schemas.
import { describe, expect, test } from "bun:test";
import { createV1App } from "../../src/api/v1.ts";
import { createRequestIds } from "../../src/http/request-id.ts";
import { silentLogger } from "../../src/log/log.ts";
import { createDispatcher } from "../../src/webhooks/delivery/dispatcher.ts";
import { senderFromConfig } from "../../src/webhooks/delivery/sender.ts";
import { testEndpoint } from "../../src/webhooks/delivery/test-send.ts";
import { eventTypes } from "../../src/webhooks/events/types.ts";
import { recordAccountEvents } from "../../src/webhooks/events/write.ts";
import { expectedSignature, schemaChecker } from "../support/openapi-schemas.ts";
import type { ReceivedRequest } from "../support/receiver.ts";
import { registerVerified, webhookSuite } from "../support/webhooks.ts";

type Json = Record<string, unknown>;
const suite = webhookSuite();
const accountId = "5b0c1f7e-8f2a-4d59-9a51-0d6f3c2b1a90";
const connectionId = "7c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f";

describe("documented webhooks match real deliveries", () => {
  test("a real delivery of every event type validates against its documented body and header schemas, and a wrong body fails", async () => {
    const setup = await suite.setup();
    const receiver = suite.receiver();
    const path = `/documented-${crypto.randomUUID()}`;
    const { endpoint, signingSecret } = await registerVerified(setup, receiver, path);
    await testEndpoint(setup.ctx, { endpointId: endpoint.id });
    const now = setup.clock.now().toISOString();
    await setup.services.db.write((tx) =>
      recordAccountEvents(tx, setup.clock, [
        {
          serviceAccountId: setup.accountId,
          type: "account.transactions.available",
          data: { account_id: accountId, fetched_at: now, new_count: 4 },
        },
        {
          serviceAccountId: setup.accountId,
          type: "account.balance.updated",
          data: { account_id: accountId, fetched_at: now },
        },
        {
          serviceAccountId: setup.accountId,
          type: "connection.status.changed",
          data: { connection_id: connectionId, status: "expired", account_ids: [accountId] },
        },
      ]),
    );
    const dispatcher = createDispatcher({
      db: setup.services.db,
      clock: setup.clock,
      log: silentLogger,
      masterKey: setup.services.masterKey,
      sender: senderFromConfig(setup.services.config, setup.clock, { resolve: setup.ctx.resolve }),
      concurrency: 4,
      endpointConcurrency: 4,
      schedule: false,
      stopGraceMs: 50,
    });
    try {
      expect(await dispatcher.runDue()).toBe(3);
    } finally {
      await dispatcher.stop();
    }

    const deliveries = receiver.requests.filter((request) => request.path === path);
    const byType = new Map<string, ReceivedRequest>();
    for (const request of deliveries) byType.set(JSON.parse(request.body).type, request);
    expect([...byType.keys()].sort()).toEqual([...eventTypes].sort());

    const v1 = createV1App(setup.services, { requestIds: createRequestIds() });
    const document = (await (await v1.app.request("/openapi.json")).json()) as Json;
    const schemas = schemaChecker(document);
    const webhooks = document.webhooks as Record<string, { post: Json }>;
    for (const [type, request] of byType) {
      const operation = webhooks[type]?.post as Json;
      const content = (operation.requestBody as { content: Json }).content;
      // Content-Type is the documented request body media type.
      expect(Object.keys(content)).toEqual([request.headers["content-type"] as string]);
      const bodyPointer = [
        "webhooks",
        type,
        "post",
        "requestBody",
        "content",
        "application/json",
        "schema",
      ];
      const body = JSON.parse(request.body) as Json;
      schemas.check(bodyPointer, body);
      (operation.parameters as Json[]).forEach((parameter, index) => {
        const value = request.headers[String(parameter.name).toLowerCase()];
        expect({ type, header: parameter.name, sent: value !== undefined }).toEqual({
          type,
          header: parameter.name,
          sent: true,
        });
        schemas.check(["webhooks", type, "post", "parameters", String(index), "schema"], value);
      });
      // What the documented signature rule says, computed independently, over the raw bytes.
      expect(request.headers["svc-webhook-signature"]).toBe(
        expectedSignature(
          signingSecret,
          request.headers["svc-webhook-timestamp"] as string,
          request.body,
        ),
      );
      expect(request.headers["svc-webhook-id"]).toBe(body.id as string);

      const withExtra = { ...body, data: { ...(body.data as Json), amount: "12.00" } };
      expect(schemas.valid(bodyPointer, withExtra)).toBe(false);
      expect(schemas.valid(bodyPointer, { ...body, api_version: "v2" })).toBe(false);
    }
  });
});
