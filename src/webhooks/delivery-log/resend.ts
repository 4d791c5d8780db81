// Resend and Retry now. Resend: the owner sends a chosen past event of the account,
// still within retention, to one of its endpoints now — a new delivery with its own attempt log
// and retry schedule, marked manual, so the receiver gets the same event id and body again.
// Retry now: a pending delivery's next attempt is brought forward to now. Both go through the
// dispatcher (the outbox signal wakes it at once in this process; its one-second tick covers
// the CLI writing from another process).
import { and, eq } from "drizzle-orm";
import type { Config } from "../../config/config.ts";
import type { Clock } from "../../core/clock.ts";
import { dayMs } from "../../core/dates.ts";
import { ApiError } from "../../core/errors.ts";
import { isUuid, newId } from "../../core/ids.ts";
import { type Db, first } from "../../db/store.ts";
import { enforceWindow } from "../../limits/sliding-window.ts";
import { type EndpointRef, findEndpoint } from "../endpoints/records.ts";
import type { OutboxSignal } from "../events/outbox-signal.ts";
import { accountEventTypes } from "../events/types.ts";
import { type DeliveryView, getDelivery } from "./log.ts";

/**
 * 60 resends per account in any 3,600 s (spec 8), counted in rate_limit_log under the account's
 * key, apart from the deliveries: removing an endpoint deletes its deliveries but not the count.
 */
export const resendLimit = { limit: 60, windowMs: 3_600_000 } as const;

export interface ResendContext {
  db: Db;
  clock: Clock;
  config: Pick<Config, "retentionDays">;
  /** Wakes this process's dispatcher after the commit. */
  outbox?: OutboxSignal;
}

/** Sends event `eventId` of the endpoint's account to the endpoint again, as a new delivery. */
export async function resendEvent(
  ctx: ResendContext,
  ref: EndpointRef,
  eventId: string,
): Promise<DeliveryView> {
  const { db, clock } = ctx;
  const endpoint = await findEndpoint(db, ref);
  const notFound = new ApiError("not_found", `No event ${eventId} of this account.`);
  if (!isUuid(eventId)) throw notFound;
  const { deliveries, events } = db.t;
  const event = await first(
    db
      .select({ id: events.id, type: events.type, createdAt: events.createdAt })
      .from(events)
      .where(and(eq(events.id, eventId), eq(events.serviceAccountId, endpoint.serviceAccountId))),
  );
  if (!event) throw notFound;
  const now = clock.now();
  if (event.createdAt.getTime() < now.getTime() - ctx.config.retentionDays * dayMs) {
    throw new ApiError(
      "invalid_state",
      `Event ${eventId} is older than the ${ctx.config.retentionDays}-day retention and cannot be resent.`,
    );
  }
  if (!(accountEventTypes as readonly string[]).includes(event.type)) {
    throw new ApiError(
      "invalid_state",
      `Event ${eventId} is a ${event.type} send; only account events can be resent (send a new test or code instead).`,
    );
  }
  if (endpoint.status !== "active" || endpoint.verifiedAt === null) {
    throw new ApiError(
      "invalid_state",
      `Endpoint ${endpoint.id} is ${endpoint.verifiedAt === null ? "not verified" : endpoint.status}; events are resent only to an active and verified endpoint.`,
    );
  }
  const deliveryId = newId();
  await db.write(async (tx) => {
    const at = clock.now();
    // Counted in the transaction that adds the delivery: a refused resend adds nothing.
    await enforceWindow(
      tx,
      clock,
      { key: `resends:${endpoint.serviceAccountId}`, ...resendLimit },
      `Too many resends: at most ${resendLimit.limit} per hour per account`,
    );
    await tx.insert(deliveries).values({
      id: deliveryId,
      eventId: event.id,
      endpointId: endpoint.id,
      kind: "event",
      manual: true,
      status: "pending",
      attemptCount: 0,
      nextAttemptAt: at,
      createdAt: at,
    });
  });
  // Read before the dispatcher is woken: the answer shows the delivery as it was created, not
  // as a claim that may already have taken it.
  const created = (await getDelivery(db, deliveryId)) as DeliveryView;
  ctx.outbox?.notify();
  return created;
}

/** Which delivery an action is about; the portal scopes it by account and endpoint (404 otherwise). */
export interface DeliveryRef {
  deliveryId: string;
  endpointId?: string;
  serviceAccountId?: string;
}

async function findDelivery(db: Db, ref: DeliveryRef) {
  const notFound = new ApiError("not_found", `No delivery ${ref.deliveryId}.`);
  if (!isUuid(ref.deliveryId)) throw notFound;
  const { deliveries, events } = db.t;
  const row = await first(
    db
      .select({
        id: deliveries.id,
        eventId: deliveries.eventId,
        endpointId: deliveries.endpointId,
        serviceAccountId: events.serviceAccountId,
      })
      .from(deliveries)
      .innerJoin(events, eq(events.id, deliveries.eventId))
      .where(eq(deliveries.id, ref.deliveryId)),
  );
  if (
    !row ||
    (ref.endpointId !== undefined && row.endpointId !== ref.endpointId) ||
    (ref.serviceAccountId !== undefined && row.serviceAccountId !== ref.serviceAccountId)
  ) {
    throw notFound;
  }
  return row;
}

/** Resends the event of a past delivery to that delivery's endpoint (the portal's button). */
export async function resendDelivery(ctx: ResendContext, ref: DeliveryRef): Promise<DeliveryView> {
  const delivery = await findDelivery(ctx.db, ref);
  return resendEvent(
    ctx,
    {
      endpointId: delivery.endpointId,
      ...(ref.serviceAccountId !== undefined ? { serviceAccountId: ref.serviceAccountId } : {}),
    },
    delivery.eventId,
  );
}

/**
 * Brings a pending delivery's next attempt forward to now. Refused (409) when it is not pending
 * or an attempt is under way right now (its lease is live: moving it would send twice).
 */
export async function retryDeliveryNow(
  ctx: Pick<ResendContext, "db" | "clock" | "outbox">,
  ref: DeliveryRef,
): Promise<DeliveryView> {
  const { db, clock } = ctx;
  const delivery = await findDelivery(db, ref);
  const { deliveries } = db.t;
  await db.write(async (tx) => {
    const now = clock.now();
    const row = await first(tx.select().from(deliveries).where(eq(deliveries.id, delivery.id)));
    if (!row) throw new ApiError("not_found", `No delivery ${ref.deliveryId}.`);
    if (row.status !== "pending") {
      throw new ApiError(
        "invalid_state",
        `Delivery ${row.id} is ${row.status}; only a pending delivery can be retried now.`,
      );
    }
    if (row.leaseExpiresAt !== null && row.leaseExpiresAt.getTime() > now.getTime()) {
      throw new ApiError(
        "invalid_state",
        `Delivery ${row.id} is being sent right now; wait for this attempt's outcome.`,
      );
    }
    await tx
      .update(deliveries)
      .set({ nextAttemptAt: now, leaseExpiresAt: null })
      .where(eq(deliveries.id, row.id));
  });
  const due = (await getDelivery(db, delivery.id)) as DeliveryView;
  ctx.outbox?.notify();
  return due;
}
