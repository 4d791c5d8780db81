// Recording a batch of finished attempts in one transaction (hot path: DESIGN.md says batch
// writes): every attempt is stored, each delivery moves on (succeeded, retry scheduled from
// the attempt's time, or dropped after the sixth retry), and each endpoint's failure streak is
// updated in the order the attempts finished: one success resets it to 0, and the failure that
// brings it to exactly 20 disables the endpoint, cancels its pending deliveries and queues the
// owner's e-mail (spec 3, 6).
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Clock } from "../clock.ts";
import type { Db, DbOrTx } from "../db/open.ts";
import { deliveries, deliveryAttempts, webhookEndpoints } from "../db/schema.ts";
import type { ClaimedDelivery } from "./delivery-claims.ts";
import { queueDisabledNotice } from "./disable-notice.ts";
import { cancelPendingDeliveries } from "./endpoint-state.ts";
import { failuresBeforeDisabling, nextRetryAt } from "./retry-schedule.ts";
import type { SendResult } from "./sender.ts";

export interface AttemptOutcome {
  delivery: ClaimedDelivery;
  result: SendResult;
}

export interface DisabledEndpoint {
  endpointId: string;
  serviceAccountId: string;
  reason: string;
}

function describeFailure(result: SendResult): string {
  return result.errorMessage ?? result.errorClass ?? "failed";
}

function updateStreaks(tx: DbOrTx, clock: Clock, outcomes: AttemptOutcome[]): DisabledEndpoint[] {
  const endpointIds = [...new Set(outcomes.map((o) => o.delivery.endpointId))];
  const endpoints = tx
    .select({
      id: webhookEndpoints.id,
      status: webhookEndpoints.status,
      failureCount: webhookEndpoints.failureCount,
      serviceAccountId: webhookEndpoints.serviceAccountId,
      url: webhookEndpoints.url,
    })
    .from(webhookEndpoints)
    .where(inArray(webhookEndpoints.id, endpointIds))
    .all();
  const state = new Map(
    endpoints.map((e) => [
      e.id,
      { ...e, count: e.failureCount, disabledBy: null as string | null },
    ]),
  );
  for (const { delivery, result } of outcomes) {
    const endpoint = state.get(delivery.endpointId);
    // Only an active endpoint counts; once disabled (here or by a person) nothing more does.
    if (endpoint?.status !== "active" || endpoint.disabledBy) continue;
    if (result.ok) {
      endpoint.count = 0;
      continue;
    }
    endpoint.count += 1;
    if (endpoint.count >= failuresBeforeDisabling) {
      endpoint.disabledBy = `${failuresBeforeDisabling} consecutive failed deliveries; the last: ${describeFailure(result)}`;
    }
  }
  const disabled: DisabledEndpoint[] = [];
  const now = clock.now();
  for (const endpoint of state.values()) {
    if (endpoint.disabledBy) {
      tx.update(webhookEndpoints)
        .set({
          status: "disabled",
          failureCount: endpoint.count,
          disabledReason: endpoint.disabledBy,
          disabledAt: now,
          updatedAt: now,
        })
        .where(eq(webhookEndpoints.id, endpoint.id))
        .run();
      cancelPendingDeliveries(tx, endpoint.id, now, "endpoint disabled");
      queueDisabledNotice(tx, clock, endpoint, endpoint.disabledBy, now);
      disabled.push({
        endpointId: endpoint.id,
        serviceAccountId: endpoint.serviceAccountId,
        reason: endpoint.disabledBy,
      });
    } else if (endpoint.count !== endpoint.failureCount) {
      tx.update(webhookEndpoints)
        .set({ failureCount: endpoint.count })
        .where(eq(webhookEndpoints.id, endpoint.id))
        .run();
    }
  }
  return disabled;
}

/** Writes a batch of finished attempts; returns the endpoints this batch disabled. */
export function recordOutcomes(
  db: Db,
  clock: Clock,
  outcomes: AttemptOutcome[],
): DisabledEndpoint[] {
  if (outcomes.length === 0) return [];
  return db.transaction(
    (tx) => {
      // A delivery removed meanwhile (its endpoint was removed) has nothing left to update.
      const existing = new Set(
        tx
          .select({ id: deliveries.id })
          .from(deliveries)
          .where(
            inArray(
              deliveries.id,
              outcomes.map((o) => o.delivery.id),
            ),
          )
          .all()
          .map((row) => row.id),
      );
      const live = outcomes.filter((o) => existing.has(o.delivery.id));
      if (live.length === 0) return [];
      tx.insert(deliveryAttempts)
        .values(
          live.map(({ delivery, result }) => ({
            deliveryId: delivery.id,
            attemptNumber: delivery.attemptCount + 1,
            startedAt: result.startedAt,
            durationMs: result.durationMs,
            outcome: result.ok ? ("succeeded" as const) : ("failed" as const),
            statusCode: result.statusCode,
            errorClass: result.errorClass,
            errorMessage: result.errorMessage,
          })),
        )
        .run();
      const completedAt = clock.now();
      // Successes in one statement per status code (the common case on the hot path).
      const succeeded = new Map<number, string[]>();
      for (const { delivery, result } of live) {
        if (result.ok) {
          const code = result.statusCode ?? 200;
          succeeded.set(code, [...(succeeded.get(code) ?? []), delivery.id]);
          continue;
        }
        const attemptNumber = delivery.attemptCount + 1;
        const retryAt = nextRetryAt(attemptNumber, result.startedAt);
        tx.update(deliveries)
          .set({
            attemptCount: attemptNumber,
            leaseExpiresAt: null,
            lastStatusCode: result.statusCode,
            lastError: describeFailure(result),
            ...(retryAt
              ? { nextAttemptAt: retryAt }
              : { status: "dropped" as const, nextAttemptAt: null, completedAt }),
          })
          // A delivery cancelled meanwhile (endpoint paused or disabled) stays cancelled.
          .where(and(eq(deliveries.id, delivery.id), eq(deliveries.status, "pending")))
          .run();
      }
      for (const [statusCode, ids] of succeeded) {
        tx.update(deliveries)
          .set({
            status: "succeeded",
            attemptCount: sql`${deliveries.attemptCount} + 1`,
            nextAttemptAt: null,
            leaseExpiresAt: null,
            lastStatusCode: statusCode,
            lastError: null,
            completedAt,
          })
          .where(inArray(deliveries.id, ids))
          .run();
      }
      return updateStreaks(tx, clock, live);
    },
    { behavior: "immediate" },
  );
}
