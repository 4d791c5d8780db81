// The delivery log: deliveries with every attempt (number, time, status code or error
// class, duration), and for a pending delivery the time of its next attempt.
import { and, asc, desc, eq, gt, inArray, lt, or } from "drizzle-orm";
import type { DeliveryKind, DeliveryStatus, Row } from "../../db/schema.ts";
import type { Db } from "../../db/store.ts";
import type { EventType } from "../events/types.ts";

export interface AttemptView {
  number: number;
  at: string;
  durationMs: number;
  outcome: "succeeded" | "failed";
  statusCode: number | null;
  errorClass: string | null;
  error: string | null;
}

export interface DeliveryView {
  id: string;
  eventId: string;
  eventType: EventType;
  endpointId: string;
  kind: DeliveryKind;
  /** A resend asked for by a person, not raised by the data. */
  manual: boolean;
  status: DeliveryStatus;
  attemptCount: number;
  /** Pending deliveries only: when the next attempt is due (or its lease ends, while sending). */
  nextAttemptAt: string | null;
  /** Set while a dispatcher holds the delivery (an attempt is under way). */
  leaseExpiresAt: string | null;
  createdAt: string;
  completedAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  attempts: AttemptView[];
}

export interface DeliveryFilter {
  deliveryId?: string;
  endpointId?: string;
  eventId?: string;
  serviceAccountId?: string;
  status?: DeliveryStatus;
  eventType?: EventType;
  /** Keyset: only deliveries after this one in the log's order (newest first). */
  before?: DeliveryCursor;
  limit?: number;
}

/** A place in the log: (created_at, id), the log's order (created_at newest first, then id). */
export interface DeliveryCursor {
  createdAt: Date;
  id: string;
}

/** The cursor as the API passes it: "<created_at ms>_<delivery id>". */
function encodeDeliveryCursor(cursor: DeliveryCursor): string {
  return `${cursor.createdAt.getTime()}_${cursor.id}`;
}

export const deliveryCursorPattern = /^(\d{1,15})_([0-9a-f-]{36})$/;

export function decodeDeliveryCursor(text: string): DeliveryCursor | undefined {
  const match = deliveryCursorPattern.exec(text);
  if (!match) return undefined;
  return { createdAt: new Date(Number(match[1])), id: match[2] as string };
}

export function attemptView(a: Row<"deliveryAttempts">): AttemptView {
  return {
    number: a.attemptNumber,
    at: a.startedAt.toISOString(),
    durationMs: a.durationMs,
    outcome: a.outcome,
    statusCode: a.statusCode,
    errorClass: a.errorClass,
    error: a.errorMessage,
  };
}

export const maxDeliveryListLimit = 1000;

export async function listDeliveries(db: Db, filter: DeliveryFilter = {}): Promise<DeliveryView[]> {
  const { deliveries, deliveryAttempts, events } = db.t;
  const conditions = [
    filter.deliveryId ? eq(deliveries.id, filter.deliveryId) : undefined,
    filter.endpointId ? eq(deliveries.endpointId, filter.endpointId) : undefined,
    filter.eventId ? eq(deliveries.eventId, filter.eventId) : undefined,
    filter.serviceAccountId ? eq(events.serviceAccountId, filter.serviceAccountId) : undefined,
    filter.status ? eq(deliveries.status, filter.status) : undefined,
    filter.eventType ? eq(events.type, filter.eventType) : undefined,
    filter.before
      ? or(
          lt(deliveries.createdAt, filter.before.createdAt),
          and(
            eq(deliveries.createdAt, filter.before.createdAt),
            gt(deliveries.id, filter.before.id),
          ),
        )
      : undefined,
  ].filter((c) => c !== undefined);
  const rows = await db
    .select({ delivery: deliveries, eventType: events.type })
    .from(deliveries)
    .innerJoin(events, eq(events.id, deliveries.eventId))
    .where(conditions.length ? and(...conditions) : undefined)
    .orderBy(desc(deliveries.createdAt), asc(deliveries.id))
    .limit(Math.min(filter.limit ?? 100, maxDeliveryListLimit));
  const attempts = new Map<string, AttemptView[]>();
  if (rows.length > 0) {
    const attemptRows = await db
      .select()
      .from(deliveryAttempts)
      .where(
        inArray(
          deliveryAttempts.deliveryId,
          rows.map((r) => r.delivery.id),
        ),
      )
      .orderBy(asc(deliveryAttempts.attemptNumber), asc(deliveryAttempts.id));
    for (const a of attemptRows) {
      const list = attempts.get(a.deliveryId) ?? [];
      list.push(attemptView(a));
      attempts.set(a.deliveryId, list);
    }
  }
  return rows.map(({ delivery: d, eventType }) => ({
    id: d.id,
    eventId: d.eventId,
    eventType,
    endpointId: d.endpointId,
    kind: d.kind,
    manual: d.manual,
    status: d.status,
    attemptCount: d.attemptCount,
    nextAttemptAt: d.status === "pending" ? (d.nextAttemptAt?.toISOString() ?? null) : null,
    leaseExpiresAt: d.status === "pending" ? (d.leaseExpiresAt?.toISOString() ?? null) : null,
    createdAt: d.createdAt.toISOString(),
    completedAt: d.completedAt?.toISOString() ?? null,
    lastStatusCode: d.lastStatusCode,
    lastError: d.lastError,
    attempts: attempts.get(d.id) ?? [],
  }));
}

/** One delivery with its attempts, or undefined. */
export async function getDelivery(db: Db, deliveryId: string): Promise<DeliveryView | undefined> {
  const [delivery] = await listDeliveries(db, { deliveryId, limit: 1 });
  return delivery;
}

export interface DeliveryPage {
  data: DeliveryView[];
  /** Pass as `before` for the next (older) page; null on the last page. */
  nextCursor: string | null;
}

/** One page of the log, newest first, with the cursor of the next page (keyset). */
export async function listDeliveryPage(
  db: Db,
  filter: DeliveryFilter & { limit: number },
): Promise<DeliveryPage> {
  // One more than asked tells whether an older page exists without a count.
  const rows = await listDeliveries(db, { ...filter, limit: filter.limit + 1 });
  const data = rows.slice(0, filter.limit);
  const last = data.at(-1);
  return {
    data,
    nextCursor:
      rows.length > filter.limit && last
        ? encodeDeliveryCursor({ createdAt: new Date(last.createdAt), id: last.id })
        : null,
  };
}
