// Writing events (a transactional outbox: docs/architecture.md "The delivery pipeline"): the event
// row with its canonical body and one delivery row per eligible endpoint are written with the
// caller's transaction, so data and the events describing it commit together or not at all.
import { and, asc, eq, inArray, isNotNull } from "drizzle-orm";
import type { Clock } from "../../core/clock.ts";
import { newId } from "../../core/ids.ts";
import { chunks } from "../../db/chunks.ts";
import type { NewRow } from "../../db/schema.ts";
import type { Db } from "../../db/store.ts";
import { canonicalJson } from "./canonical-json.ts";
import { eventDataSchemas } from "./data.ts";
import { endpointWants } from "./event-filter.ts";
import type { AccountEventType, EventData, EventEnvelope, EventType } from "./types.ts";
import {
  type EligibleEndpoint,
  type QueuedDelivery,
  sqliteEligibleEndpoints,
  sqliteInsertEvents,
} from "./write-sqlite.ts";

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

export interface AccountEventInput<T extends AccountEventType = AccountEventType> {
  serviceAccountId: string;
  type: T;
  data: EventData<T>;
}

/** The endpoints an event of these accounts may go to, by drizzle (write-sqlite.ts on SQLite). */
function eligibleEndpoints(tx: Db, accountIds: string[]): Promise<EligibleEndpoint[]> {
  const { webhookEndpoints } = tx.t;
  return tx
    .select({
      id: webhookEndpoints.id,
      serviceAccountId: webhookEndpoints.serviceAccountId,
      eventTypes: webhookEndpoints.eventTypes,
    })
    .from(webhookEndpoints)
    .where(
      and(
        inArray(webhookEndpoints.serviceAccountId, accountIds),
        eq(webhookEndpoints.status, "active"),
        isNotNull(webhookEndpoints.verifiedAt),
      ),
    )
    .orderBy(asc(webhookEndpoints.id));
}

/**
 * Records account events inside the caller's transaction and queues one delivery per endpoint
 * of the account that is active and verified (spec 3) and whose event-type filter lets the
 * type through. Endpoints that are paused, disabled or
 * unverified get nothing, now or later (spec 6). After the transaction commits, call
 * `outbox.notify()` so the dispatcher sends at once. One query for the endpoints of all the
 * accounts, then the rows: on PostgreSQL one insert for all events and one for all deliveries (a
 * sync raising several events costs three round trips, not three per event); on SQLite, where a
 * statement is a call, not a round trip, prepared single-row inserts (write-sqlite.ts).
 */
export async function recordAccountEvents(
  tx: Db,
  clock: Clock,
  inputs: AccountEventInput[],
): Promise<RecordedEvent[]> {
  if (inputs.length === 0) return [];
  const { events, deliveries } = tx.t;
  const now = clock.now();
  const accountIds = [...new Set(inputs.map((input) => input.serviceAccountId))];
  const endpoints =
    tx.engine === "sqlite"
      ? sqliteEligibleEndpoints(tx, accountIds)
      : await eligibleEndpoints(tx, accountIds);
  const eventRows: NewRow<"events">[] = [];
  const deliveryRows: QueuedDelivery[] = [];
  const recorded = inputs.map((input) => {
    const { envelope, body } = buildEvent(input.type, input.data, now);
    eventRows.push({
      id: envelope.id,
      serviceAccountId: input.serviceAccountId,
      type: input.type,
      body,
      createdAt: now,
    });
    const deliveryIds: string[] = [];
    for (const endpoint of endpoints) {
      if (endpoint.serviceAccountId !== input.serviceAccountId) continue;
      // The endpoint's event-type filter; null = all account event types.
      if (!endpointWants(endpoint.eventTypes, input.type)) continue;
      const id = newId();
      deliveryIds.push(id);
      deliveryRows.push({
        id,
        eventId: envelope.id,
        endpointId: endpoint.id,
        kind: "event",
        status: "pending",
        attemptCount: 0,
        nextAttemptAt: now,
        createdAt: now,
      });
    }
    return { eventId: envelope.id, body, deliveryIds };
  });
  if (tx.engine === "sqlite") {
    sqliteInsertEvents(tx, eventRows, deliveryRows);
    return recorded;
  }
  for (const part of chunks(eventRows)) await tx.insert(events).values(part);
  for (const part of chunks(deliveryRows)) await tx.insert(deliveries).values(part);
  return recorded;
}

/** One account event; see recordAccountEvents. */
export async function recordAccountEvent<T extends AccountEventType>(
  tx: Db,
  clock: Clock,
  input: AccountEventInput<T>,
): Promise<RecordedEvent> {
  const [recorded] = await recordAccountEvents(tx, clock, [input as AccountEventInput]);
  return recorded as RecordedEvent;
}
