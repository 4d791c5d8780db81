// Reads of a service account's events for GET /v1/events, /v1/events/{event_id} and the event
// stream. The body served is the stored one: the exact canonical envelope that is
// signed and sent, with a webhook.verify code already masked at storage
// (webhooks/delivery/verification.ts), as `svc events list` shows it. Every query carries the owner
// in its WHERE clause.
//
// Order: (created_at, id). Events of one write share created_at; their ids are time-ordered (v7)
// in writing order, so the pair is a total order and "after an event" is exact even for events
// created in the same millisecond.
import { and, asc, desc, eq, gt, gte, inArray, lt, or, type SQL } from "drizzle-orm";
import { ApiError } from "../../core/errors.ts";
import type { EventType } from "../../db/schema.ts";
import type { Db } from "../../db/store.ts";
import { type Page, toPage } from "../shared/page.ts";

/** A place in the (created_at, id) order. */
export interface EventPosition {
  createdAtMs: number;
  id: string;
}

export interface StoredEvent {
  id: string;
  type: EventType;
  createdAtMs: number;
  /** The canonical envelope JSON, byte for byte as stored. */
  body: string;
}

export interface EventFilter {
  /** Only these types (absent or empty: every type). */
  types?: readonly EventType[];
  /** Only events created strictly after this instant. */
  createdAfterMs?: number;
}

export interface EventReads {
  /** Newest first, strictly before `before` (keyset), at most `limit`. */
  listEvents(
    serviceAccountId: string,
    query: EventFilter & { limit: number; before?: EventPosition },
  ): Promise<Page<StoredEvent>>;
  /** Throws not_found unless the event exists and belongs to the service account. */
  getEvent(serviceAccountId: string, eventId: string): Promise<StoredEvent>;
  /** The event's position, or undefined when it is unknown or another account's. */
  positionOf(serviceAccountId: string, eventId: string): Promise<EventPosition | undefined>;
  /**
   * Oldest first, strictly after `after` (or every event when absent), created at or after
   * `notBeforeMs` when given, at most `limit`.
   */
  eventsAfter(
    serviceAccountId: string,
    query: EventFilter & { after?: EventPosition; notBeforeMs?: number; limit: number },
  ): Promise<StoredEvent[]>;
}

export function eventNotFound(eventId: string): ApiError {
  return new ApiError("not_found", `No event ${eventId}.`);
}

export function createEventReads(db: Db): EventReads {
  const { events } = db.t;
  const columns = {
    id: events.id,
    type: events.type,
    createdAt: events.createdAt,
    body: events.body,
  };
  const toStored = (row: { id: string; type: EventType; createdAt: Date; body: string }) => ({
    id: row.id,
    type: row.type,
    createdAtMs: row.createdAt.getTime(),
    body: row.body,
  });
  const filterConditions = (owner: string, filter: EventFilter): (SQL | undefined)[] => [
    eq(events.serviceAccountId, owner),
    filter.types && filter.types.length > 0 ? inArray(events.type, [...filter.types]) : undefined,
    filter.createdAfterMs !== undefined
      ? gt(events.createdAt, new Date(filter.createdAfterMs))
      : undefined,
  ];
  /** Strictly before (lt) or after (gt) `position` in the (created_at, id) order. */
  const beyond = (position: EventPosition, compare: typeof lt | typeof gt) =>
    or(
      compare(events.createdAt, new Date(position.createdAtMs)),
      and(eq(events.createdAt, new Date(position.createdAtMs)), compare(events.id, position.id)),
    );
  return {
    async listEvents(owner, query) {
      const before = query.before;
      const rows = await db
        .select(columns)
        .from(events)
        .where(and(...filterConditions(owner, query), before ? beyond(before, lt) : undefined))
        .orderBy(desc(events.createdAt), desc(events.id))
        .limit(query.limit + 1);
      return toPage(rows.map(toStored), query.limit);
    },
    async getEvent(owner, eventId) {
      const [row] = await db
        .select(columns)
        .from(events)
        .where(and(eq(events.id, eventId), eq(events.serviceAccountId, owner)));
      if (!row) throw eventNotFound(eventId);
      return toStored(row);
    },
    async positionOf(owner, eventId) {
      const [row] = await db
        .select({ id: events.id, createdAt: events.createdAt })
        .from(events)
        .where(and(eq(events.id, eventId), eq(events.serviceAccountId, owner)));
      return row ? { id: row.id, createdAtMs: row.createdAt.getTime() } : undefined;
    },
    async eventsAfter(owner, query) {
      const after = query.after;
      const rows = await db
        .select(columns)
        .from(events)
        .where(
          and(
            ...filterConditions(owner, query),
            after ? beyond(after, gt) : undefined,
            query.notBeforeMs !== undefined
              ? gte(events.createdAt, new Date(query.notBeforeMs))
              : undefined,
          ),
        )
        .orderBy(asc(events.createdAt), asc(events.id))
        .limit(query.limit);
      return rows.map(toStored);
    },
  };
}
