// Endpoint state changes made by people (spec 3 "Webhook endpoint", 6):
// Enable after disabling, Pause/Resume, Remove. Nothing raised while an endpoint could not
// receive is replayed later (spec 6): pausing cancels its pending deliveries, as disabling does.
import { and, eq } from "drizzle-orm";
import type { Clock } from "../../core/clock.ts";
import { ApiError } from "../../core/errors.ts";
import type { EndpointStatus, NewRow } from "../../db/schema.ts";
import type { Db } from "../../db/store.ts";
import { type EndpointRef, type EndpointView, endpointView, findEndpoint } from "./records.ts";

/** Cancels every pending delivery of an endpoint (disabled or paused: sending stops). */
export async function cancelPendingDeliveries(
  tx: Db,
  endpointId: string,
  now: Date,
  reason: string,
): Promise<number> {
  const { deliveries } = tx.t;
  const cancelled = await tx
    .update(deliveries)
    .set({
      status: "cancelled",
      nextAttemptAt: null,
      leaseExpiresAt: null,
      completedAt: now,
      lastError: reason,
    })
    .where(and(eq(deliveries.endpointId, endpointId), eq(deliveries.status, "pending")))
    .returning({ id: deliveries.id });
  return cancelled.length;
}

function transition(
  db: Db,
  clock: Clock,
  ref: EndpointRef,
  from: EndpointStatus,
  action: string,
  changes: Partial<NewRow<"webhookEndpoints">>,
  after?: (tx: Db, endpointId: string, now: Date) => Promise<unknown>,
): Promise<EndpointView> {
  return db.write(async (tx) => {
    const { webhookEndpoints } = tx.t;
    const endpoint = await findEndpoint(tx, ref);
    if (endpoint.status !== from) {
      throw new ApiError(
        "invalid_state",
        `Endpoint ${endpoint.id} is ${endpoint.status}; only a ${from} endpoint can be ${action}.`,
      );
    }
    const now = clock.now();
    const [row] = await tx
      .update(webhookEndpoints)
      .set({ ...changes, updatedAt: now })
      .where(eq(webhookEndpoints.id, endpoint.id))
      .returning();
    await after?.(tx, endpoint.id, now);
    // biome-ignore lint/style/noNonNullAssertion: the row was just found in this transaction
    return endpointView(row!);
  });
}

/** Spec 3: Enable clears the disabled state and the failure count; nothing is replayed. */
export function enableEndpoint(db: Db, clock: Clock, ref: EndpointRef): Promise<EndpointView> {
  return transition(db, clock, ref, "disabled", "enabled", {
    status: "active",
    failureCount: 0,
    disabledReason: null,
    disabledAt: null,
  });
}

/** Pause stops all sending; pending deliveries are cancelled and never sent after Resume. */
export function pauseEndpoint(db: Db, clock: Clock, ref: EndpointRef): Promise<EndpointView> {
  return transition(db, clock, ref, "active", "paused", { status: "paused" }, (tx, id, now) =>
    cancelPendingDeliveries(tx, id, now, "endpoint paused"),
  );
}

export function resumeEndpoint(db: Db, clock: Clock, ref: EndpointRef): Promise<EndpointView> {
  return transition(db, clock, ref, "paused", "resumed", { status: "active" });
}

/** Removes the endpoint with its deliveries, attempts and verification code. */
export async function removeEndpoint(
  db: Db,
  ref: EndpointRef,
): Promise<{ id: string; removed: true }> {
  return db.write(async (tx) => {
    const { webhookEndpoints } = tx.t;
    const endpoint = await findEndpoint(tx, ref);
    await tx.delete(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id));
    return { id: endpoint.id, removed: true as const };
  });
}
