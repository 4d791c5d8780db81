// Endpoint state changes made by people (spec 3 "Webhook endpoint"; DESIGN.md "Disabling"):
// Enable after disabling, Pause/Resume, Remove. Nothing raised while an endpoint could not
// receive is replayed later (spec 6): pausing cancels its pending deliveries, as disabling does.
import { and, eq } from "drizzle-orm";
import type { Clock } from "../clock.ts";
import type { Db, DbOrTx } from "../db/open.ts";
import { deliveries, type EndpointStatus, webhookEndpoints } from "../db/schema.ts";
import { ApiError } from "../http/errors.ts";
import {
  type EndpointRef,
  type EndpointView,
  endpointView,
  findEndpoint,
} from "./endpoint-records.ts";

/** Cancels every pending delivery of an endpoint (disabled or paused: sending stops). */
export function cancelPendingDeliveries(
  tx: DbOrTx,
  endpointId: string,
  now: Date,
  reason: string,
): number {
  return tx
    .update(deliveries)
    .set({
      status: "cancelled",
      nextAttemptAt: null,
      leaseExpiresAt: null,
      completedAt: now,
      lastError: reason,
    })
    .where(and(eq(deliveries.endpointId, endpointId), eq(deliveries.status, "pending")))
    .returning({ id: deliveries.id })
    .all().length;
}

function transition(
  db: Db,
  clock: Clock,
  ref: EndpointRef,
  from: EndpointStatus,
  action: string,
  changes: Partial<typeof webhookEndpoints.$inferInsert>,
  after?: (tx: DbOrTx, endpointId: string, now: Date) => void,
): EndpointView {
  return db.transaction(
    (tx) => {
      const endpoint = findEndpoint(tx, ref);
      if (endpoint.status !== from) {
        throw new ApiError(
          "invalid_state",
          `Endpoint ${endpoint.id} is ${endpoint.status}; only a ${from} endpoint can be ${action}.`,
        );
      }
      const now = clock.now();
      const row = tx
        .update(webhookEndpoints)
        .set({ ...changes, updatedAt: now })
        .where(eq(webhookEndpoints.id, endpoint.id))
        .returning()
        .get() as typeof webhookEndpoints.$inferSelect;
      after?.(tx, endpoint.id, now);
      return endpointView(row);
    },
    { behavior: "immediate" },
  );
}

/** Spec 3: Enable clears the disabled state and the failure count; nothing is replayed. */
export function enableEndpoint(db: Db, clock: Clock, ref: EndpointRef): EndpointView {
  return transition(db, clock, ref, "disabled", "enabled", {
    status: "active",
    failureCount: 0,
    disabledReason: null,
    disabledAt: null,
  });
}

/** Pause stops all sending; pending deliveries are cancelled and never sent after Resume. */
export function pauseEndpoint(db: Db, clock: Clock, ref: EndpointRef): EndpointView {
  return transition(db, clock, ref, "active", "paused", { status: "paused" }, (tx, id, now) =>
    cancelPendingDeliveries(tx, id, now, "endpoint paused"),
  );
}

export function resumeEndpoint(db: Db, clock: Clock, ref: EndpointRef): EndpointView {
  return transition(db, clock, ref, "paused", "resumed", { status: "active" });
}

/** Removes the endpoint with its deliveries, attempts and verification code. */
export function removeEndpoint(db: Db, ref: EndpointRef): { id: string; removed: true } {
  const endpoint = findEndpoint(db, ref);
  db.delete(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id)).run();
  return { id: endpoint.id, removed: true };
}
