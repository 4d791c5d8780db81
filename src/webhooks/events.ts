// Writing events (transactional outbox, DESIGN.md): the event row with its canonical body and
// one delivery row per eligible endpoint are written with the caller's transaction, so data
// and the events describing it commit together or not at all.
import { and, eq, isNotNull } from "drizzle-orm";
import type { Clock } from "../clock.ts";
import type { DbOrTx } from "../db/open.ts";
import { deliveries, type EventType, events, webhookEndpoints } from "../db/schema.ts";
import { newId } from "../ids.ts";
import { canonicalJson } from "./canonical-json.ts";
import {
  type AccountEventType,
  type EventData,
  type EventEnvelope,
  eventDataSchemas,
} from "./event-types.ts";

export interface BuiltEvent<T extends EventType> {
  envelope: EventEnvelope<T>;
  /** The exact bytes that are stored, signed and sent. */
  body: string;
}

/** Validates `data` against the spec's table for `type` and serialises the envelope canonically. */
export function buildEvent<T extends EventType>(
  type: T,
  data: EventData<T>,
  createdAt: Date,
  id: string = newId(),
): BuiltEvent<T> {
  const parsed = eventDataSchemas[type].safeParse(data);
  if (!parsed.success) {
    throw new TypeError(
      `event ${type}: data does not match the spec: ${parsed.error.issues[0]?.message}`,
    );
  }
  const envelope = {
    id,
    type,
    created_at: createdAt.toISOString(),
    api_version: "v1",
    data: parsed.data,
  } as EventEnvelope<T>;
  return { envelope, body: canonicalJson(envelope) };
}

export interface RecordedEvent {
  eventId: string;
  body: string;
  deliveryIds: string[];
}

/**
 * Records an account event inside the caller's transaction and queues one delivery per
 * endpoint of the account that is active and verified (spec 3). Endpoints that are paused,
 * disabled or unverified get nothing, now or later (spec 6). After the transaction commits,
 * call `outbox.notify()` so the dispatcher sends at once.
 */
export function recordAccountEvent<T extends AccountEventType>(
  tx: DbOrTx,
  clock: Clock,
  input: { serviceAccountId: string; type: T; data: EventData<T> },
): RecordedEvent {
  const now = clock.now();
  const { envelope, body } = buildEvent(input.type, input.data, now);
  tx.insert(events)
    .values({
      id: envelope.id,
      serviceAccountId: input.serviceAccountId,
      type: input.type,
      body,
      createdAt: now,
    })
    .run();
  const eligible = tx
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(
      and(
        eq(webhookEndpoints.serviceAccountId, input.serviceAccountId),
        eq(webhookEndpoints.status, "active"),
        isNotNull(webhookEndpoints.verifiedAt),
      ),
    )
    .all();
  const deliveryIds = eligible.map(() => newId());
  if (eligible.length > 0) {
    tx.insert(deliveries)
      .values(
        eligible.map((endpoint, i) => ({
          id: deliveryIds[i] as string,
          eventId: envelope.id,
          endpointId: endpoint.id,
          kind: "event" as const,
          status: "pending" as const,
          nextAttemptAt: now,
          createdAt: now,
        })),
      )
      .run();
  }
  return { eventId: envelope.id, body, deliveryIds };
}
