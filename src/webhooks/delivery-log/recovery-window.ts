// Which events of a window a recovery re-sends, and which it leaves alone (spec 6). An event is
// recoverable for an endpoint when its delivery there failed for good (dropped after the last
// retry) or was cut after at least one failed attempt (cancelled when the endpoint was disabled
// mid-schedule), and nothing of it reached the endpoint since or is still on its way. An event
// that was never attempted (raised while the endpoint was paused, disabled or unverified, or
// cancelled before its first attempt) stays unsent: the owner reads those from /v1/events.
import {
  and,
  asc,
  count,
  eq,
  exists,
  gt,
  gte,
  inArray,
  lte,
  notExists,
  or,
  sql,
} from "drizzle-orm";
import type { Db } from "../../db/store.ts";
import { readEventTypeFilter } from "../events/event-filter.ts";
import { accountEventTypes } from "../events/types.ts";

export interface RecoveryWindow {
  serviceAccountId: string;
  endpointId: string;
  since: Date;
  until: Date;
}

/** The position of a walk through the window: events strictly after it come next. */
export interface RecoveryCursor {
  createdAt: Date;
  eventId: string;
}

/** The delivery had an attempt (a cancel can land while one is under way: its count stays 0). */
function attempted(db: Db) {
  const { deliveries, deliveryAttempts } = db.t;
  return or(
    gt(deliveries.attemptCount, 0),
    exists(
      db
        .select({ one: sql`1` })
        .from(deliveryAttempts)
        .where(eq(deliveryAttempts.deliveryId, deliveries.id)),
    ),
  );
}

function recoverable(db: Db, endpointId: string) {
  const { deliveries, events } = db.t;
  const ofThisEvent = and(eq(deliveries.eventId, events.id), eq(deliveries.endpointId, endpointId));
  return and(
    exists(
      db
        .select({ one: sql`1` })
        .from(deliveries)
        .where(
          and(
            ofThisEvent,
            or(
              eq(deliveries.status, "dropped"),
              and(eq(deliveries.status, "cancelled"), attempted(db)),
            ),
          ),
        ),
    ),
    notExists(
      db
        .select({ one: sql`1` })
        .from(deliveries)
        .where(and(ofThisEvent, inArray(deliveries.status, ["succeeded", "pending"]))),
    ),
  );
}

function inWindow(db: Db, window: RecoveryWindow) {
  const { events } = db.t;
  return and(
    eq(events.serviceAccountId, window.serviceAccountId),
    gte(events.createdAt, window.since),
    lte(events.createdAt, window.until),
    inArray(events.type, [...accountEventTypes]),
  );
}

/** How many events of the window would be re-sent now. */
export async function countRecoverable(db: Db, window: RecoveryWindow): Promise<number> {
  const { events } = db.t;
  const [row] = await db
    .select({ n: count() })
    .from(events)
    .where(and(inWindow(db, window), recoverable(db, window.endpointId)));
  return Number(row?.n ?? 0);
}

/**
 * How many events of the window the endpoint wanted (its event-type filter, since it was
 * registered) but never got an attempt of: they stay unsent (spec 6).
 */
export async function countNeverSent(
  db: Db,
  window: RecoveryWindow,
  endpoint: { createdAt: Date; eventTypes: string | null },
): Promise<number> {
  const { deliveries, events } = db.t;
  const wanted = readEventTypeFilter(endpoint.eventTypes) ?? [...accountEventTypes];
  const [row] = await db
    .select({ n: count() })
    .from(events)
    .where(
      and(
        inWindow(db, window),
        inArray(events.type, wanted),
        gte(events.createdAt, endpoint.createdAt),
        notExists(
          db
            .select({ one: sql`1` })
            .from(deliveries)
            .where(
              and(
                eq(deliveries.eventId, events.id),
                eq(deliveries.endpointId, window.endpointId),
                or(attempted(db), inArray(deliveries.status, ["succeeded", "pending"])),
              ),
            ),
        ),
      ),
    );
  return Number(row?.n ?? 0);
}

/** The next `limit` recoverable events after `cursor`, in creation order. */
export function nextRecoverable(
  db: Db,
  window: RecoveryWindow,
  cursor: RecoveryCursor | null,
  limit: number,
): Promise<{ id: string; createdAt: Date }[]> {
  const { events } = db.t;
  const after = cursor
    ? or(
        gt(events.createdAt, cursor.createdAt),
        and(eq(events.createdAt, cursor.createdAt), gt(events.id, cursor.eventId)),
      )
    : undefined;
  return db
    .select({ id: events.id, createdAt: events.createdAt })
    .from(events)
    .where(and(inWindow(db, window), after, recoverable(db, window.endpointId)))
    .orderBy(asc(events.createdAt), asc(events.id))
    .limit(limit);
}
