// The OpenAPI 3.1 `webhooks` section: one entry per event type of the event catalog
// (webhooks/events/types.ts, spec 6), its body the envelope (spec 2) converted from the SAME zod
// data schemas the event writer validates with, so the reference cannot drift from what is
// sent. The headers (spec 4 "Webhook delivery") are documented with their rules, and each
// webhook's example is the catalog's example built by buildEvent and signed by deliveryHeaders
// with a published example secret, so a reader can check a signature against it by hand.
import { z } from "zod";
import { deliveryHeaders, webhookUserAgent } from "../../webhooks/delivery/signing.ts";
import { eventDataSchemas } from "../../webhooks/events/data.ts";
import {
  type EventType,
  eventCatalog,
  eventTypes,
  exampleEventCreatedAt,
} from "../../webhooks/events/types.ts";
import { buildEvent } from "../../webhooks/events/write.ts";

type Json = Record<string, unknown>;

/** Published in the document so readers can check the example signatures; never a real secret. */
export const exampleSigningSecret = "whsec_EXAMPLE-ONLY-not-a-real-secret-7QmV2rLp4sNw8yZb3cFhK9t";
/** The example events' attempt time: 2026-01-15T09:00:05Z. */
const exampleAttemptAt = new Date("2026-01-15T09:00:05.000Z");

/** The envelope of one event type (spec 2: exactly five fields), over the writer's data schema. */
function eventEnvelopeSchema<T extends EventType>(type: T) {
  return z.strictObject({
    id: z.uuid(),
    type: z.literal(type),
    created_at: z.iso.datetime({ offset: false, precision: 3 }),
    api_version: z.literal("v1"),
    data: eventDataSchemas[type],
  });
}

const dataFieldDescriptions: Record<string, string> = {
  account_id: "The account the event is about (a UUID, as in `/accounts/{account_id}`).",
  fetched_at:
    "When the sync ran (RFC 3339 UTC with milliseconds). For account.balance.updated, the same string as the balance's `fetched_at`.",
  new_count: "How many transactions arrived in that sync.",
  connection_id: "The connection (a UUID, as in `/connections/{connection_id}`).",
  status: "The connection's new status.",
  account_ids: "Every account the connection carries.",
  code: "The verification code to enter in the portal.",
  endpoint_id: "The webhook endpoint this event was sent to.",
};

const envelopeFieldDescriptions: Record<string, string> = {
  id: "The event's id (a UUID): the same on every retry and equal to the `Svc-Webhook-Id` header. De-duplicate on it.",
  type: "The event type.",
  created_at:
    "When the event was created (RFC 3339 UTC with milliseconds), not when this attempt was sent.",
  api_version: "Always `v1`.",
  data: "Identifiers for this event type. Events never carry amounts, descriptions, names, balances or account numbers: read those from the API.",
};

/** zod -> JSON Schema 2020-12 (OpenAPI 3.1's dialect), with the field descriptions added. */
function envelopeJsonSchema(type: EventType, description: string): Json {
  const schema = z.toJSONSchema(eventEnvelopeSchema(type), { target: "draft-2020-12" }) as Json;
  delete schema.$schema;
  const properties = schema.properties as Record<string, Json>;
  for (const [name, text] of Object.entries(envelopeFieldDescriptions)) {
    if (properties[name]) properties[name].description = text;
  }
  const dataProperties = (properties.data?.properties ?? {}) as Record<string, Json>;
  for (const [name, property] of Object.entries(dataProperties)) {
    const text = dataFieldDescriptions[name];
    if (text) property.description = text;
  }
  return { ...schema, description };
}

export interface SignedExample {
  /** The exact body bytes (canonical JSON) that are signed and sent. */
  body: string;
  envelope: Json;
  headers: Record<string, string>;
}

/** The example delivery of `type`: built by the real event builder, signed by the real signer. */
export function signedWebhookExample(type: EventType): SignedExample {
  const { example } = eventCatalog[type];
  const { envelope, body } = buildEvent(
    type,
    example.data as never,
    exampleEventCreatedAt,
    example.id,
  );
  const headers = deliveryHeaders({
    eventId: envelope.id,
    body,
    secret: exampleSigningSecret,
    attemptAt: exampleAttemptAt,
  });
  return { body, envelope: envelope as unknown as Json, headers };
}

/** Header parameters of a delivery (spec 4); Content-Type is the request body's media type. */
function headerParameters(example: SignedExample): Json[] {
  return [
    {
      name: "User-Agent",
      in: "header",
      required: true,
      description: `Always \`${webhookUserAgent}\`.`,
      schema: { type: "string", const: webhookUserAgent },
      example: example.headers["User-Agent"],
    },
    {
      name: "Svc-Webhook-Id",
      in: "header",
      required: true,
      description:
        "The event's id, equal to `id` in the body; the same on every retry. De-duplicate on it after verifying.",
      schema: { type: "string", format: "uuid" },
      example: example.headers["Svc-Webhook-Id"],
    },
    {
      name: "Svc-Webhook-Timestamp",
      in: "header",
      required: true,
      description:
        "Unix seconds of this attempt (a retry carries a fresh value). Reject the delivery when it is not all digits or differs from your clock by more than 300 seconds.",
      schema: { type: "string", pattern: "^[0-9]+$" },
      example: example.headers["Svc-Webhook-Timestamp"],
    },
    {
      name: "Svc-Webhook-Signature",
      in: "header",
      required: true,
      description:
        "`v1=` and the lowercase hex HMAC-SHA256 of `{timestamp}.{body}` (the timestamp header as sent, a dot, then the raw body bytes), keyed with the endpoint's signing secret (the whole `whsec_...` string as UTF-8). Compute it over the raw bytes, not re-serialised JSON, and compare in constant time. A retry carries a fresh signature.",
      schema: { type: "string", pattern: "^v1=[0-9a-f]{64}$" },
      example: example.headers["Svc-Webhook-Signature"],
    },
  ];
}

function webhookOperation(type: EventType): Json {
  const docs = eventCatalog[type];
  const example = signedWebhookExample(type);
  const verifyNote = [
    "**Checking the example signature.** The example was built and signed by the service's own code with the example secret",
    `\`${exampleSigningSecret}\`, timestamp \`${example.headers["Svc-Webhook-Timestamp"]}\` and exactly these body bytes:`,
    "",
    `\`${example.body}\``,
    "",
    `HMAC-SHA256 of \`${example.headers["Svc-Webhook-Timestamp"]}.\` followed by those bytes gives the \`Svc-Webhook-Signature\` shown.`,
  ].join("\n");
  return {
    post: {
      operationId: `webhook_${type.replaceAll(".", "_")}`,
      tags: ["Webhooks"],
      summary: docs.summary,
      description: `${docs.description}\n\nSent as \`POST <your endpoint URL>\` with \`Content-Type: application/json\` and the canonical JSON envelope (keys sorted, compact) as the raw body. Answer any 2xx within 10 seconds; only the status is read. Anything else (3xx included), or no answer in time, is a failed attempt, retried after 1 min, 5 min, 30 min, 2 h, 12 h and 24 h.\n\n${verifyNote}`,
      security: [],
      parameters: headerParameters(example),
      requestBody: {
        required: true,
        description: "The event envelope, serialised canonically: sign-check these raw bytes.",
        content: {
          "application/json": {
            schema: { $ref: `#/components/schemas/${docs.schemaName}` },
            examples: {
              signed: {
                summary: "The signed example delivery",
                value: example.envelope,
              },
            },
          },
        },
      },
      responses: {
        "2XX": {
          description:
            "Delivered. Any 2xx within 10 seconds counts; the body is never read. A successful delivery resets the endpoint's failure count.",
        },
        default: {
          description:
            "Failed attempt: any other status (3xx included; redirects are not followed), no answer within 10 seconds, or a TLS or connection error. Retried on the schedule above; 20 consecutive failures disable the endpoint.",
        },
      },
    },
  };
}

/** The `webhooks` section and the envelope schemas it refers to (added to components.schemas). */
export function webhooksSection(): { webhooks: Json; schemas: Json } {
  const webhooks: Json = {};
  const schemas: Json = {};
  for (const type of eventTypes) {
    webhooks[type] = webhookOperation(type);
    schemas[eventCatalog[type].schemaName] = envelopeJsonSchema(
      type,
      `The \`${type}\` event envelope.`,
    );
  }
  return { webhooks, schemas };
}
