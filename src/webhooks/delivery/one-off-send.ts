// Test and verification sends (spec 3 "portal: Test", 8): one attempt each, shown to the person at
// once (status code, time in ms). They reach unverified endpoints, are never retried and do not
// count towards the failure streak. The event, its delivery and the attempt are recorded for the
// delivery log.
import { newId } from "../../core/ids.ts";
import type { EndpointRow } from "../endpoints/records.ts";
import { deriveSigningSecret } from "../endpoints/secrets.ts";
import type { BuiltEvent } from "../events/write.ts";
import type { WebhookContext } from "./context.ts";
import type { DeliveryErrorClass } from "./sender.ts";

export interface OneOffSendView {
  eventId: string;
  deliveryId: string;
  endpointId: string;
  type: "webhook.test" | "webhook.verify";
  /** A 2xx within 10 seconds. */
  ok: boolean;
  /** The receiver's status code, or null when no answer came. */
  statusCode: number | null;
  responseTimeMs: number;
  errorClass: DeliveryErrorClass | null;
  error: string | null;
  attemptedAt: string;
}

export async function sendOnce(
  ctx: Pick<WebhookContext, "db" | "masterKey" | "sender">,
  endpoint: EndpointRow,
  built: BuiltEvent<"webhook.test" | "webhook.verify">,
  /** What the events table keeps (a verification code is masked: only its hash is stored). */
  storedBody: string,
): Promise<OneOffSendView> {
  const secret = deriveSigningSecret(ctx.masterKey, endpoint.id, endpoint.secretSalt);
  const result = await ctx.sender.send({
    url: endpoint.url,
    eventId: built.envelope.id,
    body: built.body,
    secret,
  });
  const deliveryId = newId();
  const completedAt = new Date(result.startedAt.getTime() + result.durationMs);
  await ctx.db.write(async (tx) => {
    const { deliveries, deliveryAttempts, events } = tx.t;
    await tx.insert(events).values({
      id: built.envelope.id,
      serviceAccountId: endpoint.serviceAccountId,
      type: built.envelope.type,
      body: storedBody,
      createdAt: new Date(built.envelope.created_at),
    });
    await tx.insert(deliveries).values({
      id: deliveryId,
      eventId: built.envelope.id,
      endpointId: endpoint.id,
      kind: built.envelope.type === "webhook.test" ? "test" : "verify",
      status: result.ok ? "succeeded" : "failed",
      attemptCount: 1,
      nextAttemptAt: null,
      lastStatusCode: result.statusCode,
      lastError: result.errorMessage,
      createdAt: result.startedAt,
      completedAt,
    });
    await tx.insert(deliveryAttempts).values({
      id: newId(),
      deliveryId,
      attemptNumber: 1,
      startedAt: result.startedAt,
      durationMs: Math.round(result.durationMs),
      outcome: result.ok ? "succeeded" : "failed",
      statusCode: result.statusCode,
      errorClass: result.errorClass,
      errorMessage: result.errorMessage,
      // A verification code's signature is not kept: with the signing secret it would let
      // the code be found offline without reading the receiver.
      signature: built.envelope.type === "webhook.verify" ? null : (result.signature ?? null),
    });
  });
  return {
    eventId: built.envelope.id,
    deliveryId,
    endpointId: endpoint.id,
    type: built.envelope.type,
    ok: result.ok,
    statusCode: result.statusCode,
    responseTimeMs: result.durationMs,
    errorClass: result.errorClass,
    error: result.errorMessage,
    attemptedAt: result.startedAt.toISOString(),
  };
}
