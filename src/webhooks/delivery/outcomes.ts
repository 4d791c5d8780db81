// Recording a batch of finished attempts in one transaction (writes on the hot path are
// batched): every attempt is stored, each delivery moves on (succeeded, retry scheduled from
// the attempt's time, or dropped after the sixth retry), and each endpoint's failure streak is
// updated in the order the attempts finished: one success resets it to 0, and the failure that
// brings it to exactly 20 disables the endpoint, cancels its pending deliveries and queues the
// owner's e-mail (spec 3, 6).
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Clock } from "../../core/clock.ts";
import { newId } from "../../core/ids.ts";
import { idIn } from "../../db/id-list.ts";
import type { Db } from "../../db/store.ts";
import { cancelPendingDeliveries } from "../endpoints/state.ts";
import type { AttemptOutcome, EndpointState } from "./attempt-outcome.ts";
import { queueDisabledNotice } from "./disable-notice.ts";
import { recordOnPostgres, rescheduleOnPostgres } from "./outcomes-postgres.ts";
import { failuresBeforeDisabling, nextRetryAt } from "./retry-schedule.ts";
import type { SendResult } from "./sender.ts";

/** How many deliveries of a batch ended where (for the metrics). */
export interface BatchDispositions {
  succeeded: number;
  retryScheduled: number;
  dropped: number;
}

export interface RecordedBatch {
  disabled: DisabledEndpoint[];
  dispositions: BatchDispositions;
  /** Outcomes not recorded: their delivery was removed, or claimed again after the lease ran out. */
  superseded: number;
}

export interface DisabledEndpoint {
  endpointId: string;
  serviceAccountId: string;
  reason: string;
}

function describeFailure(result: SendResult): string {
  return result.errorMessage ?? result.errorClass ?? "failed";
}

async function updateStreaks(
  tx: Db,
  clock: Clock,
  outcomes: AttemptOutcome[],
  /** The batch's endpoints, when already read. */
  read?: EndpointState[],
): Promise<DisabledEndpoint[]> {
  const { webhookEndpoints } = tx.t;
  const endpointIds = [...new Set(outcomes.map((o) => o.delivery.endpointId))];
  const endpoints: EndpointState[] =
    read ??
    (await tx
      .select({
        id: webhookEndpoints.id,
        status: webhookEndpoints.status,
        failureCount: webhookEndpoints.failureCount,
        serviceAccountId: webhookEndpoints.serviceAccountId,
        url: webhookEndpoints.url,
      })
      .from(webhookEndpoints)
      .where(inArray(webhookEndpoints.id, endpointIds)));
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
      await tx
        .update(webhookEndpoints)
        .set({
          status: "disabled",
          failureCount: endpoint.count,
          disabledReason: endpoint.disabledBy,
          disabledAt: now,
          updatedAt: now,
        })
        .where(eq(webhookEndpoints.id, endpoint.id));
      await cancelPendingDeliveries(tx, endpoint.id, now, "endpoint disabled");
      await queueDisabledNotice(tx, clock, endpoint, endpoint.disabledBy, now);
      disabled.push({
        endpointId: endpoint.id,
        serviceAccountId: endpoint.serviceAccountId,
        reason: endpoint.disabledBy,
      });
    } else if (endpoint.count !== endpoint.failureCount) {
      await tx
        .update(webhookEndpoints)
        .set({ failureCount: endpoint.count })
        .where(eq(webhookEndpoints.id, endpoint.id));
    }
  }
  return disabled;
}

/**
 * Stores the batch's attempts on SQLite: one statement with the rows as one JSON parameter
 * (json_each), because drizzle's builder spent about a quarter of a 64-row batch's CPU building
 * the multi-row insert's 640 parameters (PostgreSQL writes them in recordOnPostgres).
 */
async function insertSqliteAttempts(tx: Db, live: AttemptOutcome[]): Promise<void> {
  const rows = live.map(({ delivery, result }) => ({
    id: newId(),
    deliveryId: delivery.id,
    attemptNumber: delivery.attemptCount + 1,
    startedAt: result.startedAt,
    durationMs: Math.round(result.durationMs),
    outcome: result.ok ? ("succeeded" as const) : ("failed" as const),
    statusCode: result.statusCode,
    errorClass: result.errorClass,
    errorMessage: result.errorMessage,
    signature: result.signature ?? null,
  }));
  const json = JSON.stringify(
    rows.map((r) => [
      r.id,
      r.deliveryId,
      r.attemptNumber,
      r.startedAt.getTime(),
      r.durationMs,
      r.outcome,
      r.statusCode,
      r.errorClass,
      r.errorMessage,
      r.signature,
    ]),
  );
  await tx.rows(sql`INSERT INTO delivery_attempts (id, delivery_id, attempt_number, started_at,
    duration_ms, outcome, status_code, error_class, error_message, signature)
    SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5,
      value ->> 6, value ->> 7, value ->> 8, value ->> 9
    FROM json_each(${json})`);
}

async function recordBatch(
  tx: Db,
  clock: Clock,
  outcomes: AttemptOutcome[],
): Promise<RecordedBatch> {
  const { deliveries } = tx.t;
  const dispositions: BatchDispositions = { succeeded: 0, retryScheduled: 0, dropped: 0 };
  const completedAt = clock.now();
  if (tx.engine === "postgres") {
    const recorded = await recordOnPostgres(tx, outcomes, completedAt);
    dispositions.succeeded = recorded.succeeded;
    const live = outcomes.filter((o) => recorded.live.has(o.delivery.id));
    return finishBatch(tx, clock, live, outcomes.length - live.length, dispositions, {
      completedAt,
      endpoints: recorded.endpoints,
    });
  }
  // Only outcomes whose claim still holds the row are recorded (fencing: a dispatcher that
  // stalled past its lease cannot overwrite the attempt of the one that took the row over); a
  // delivery removed meanwhile (its endpoint was removed) has nothing left to update either.
  // Successes learn it from their UPDATE, failures from one query.
  const current = new Set<string>();
  // Successes in one UPDATE per status code and claim (usually one): attempt_count moves by one,
  // as the claim left it (the claim token guarantees no other attempt was recorded since).
  const succeededBy = new Map<
    string,
    { statusCode: number | null; token: string; ids: string[] }
  >();
  for (const { delivery, result } of outcomes) {
    if (!result.ok) continue;
    const group = `${result.statusCode} ${delivery.claimToken}`;
    const entry = succeededBy.get(group) ?? {
      statusCode: result.statusCode,
      token: delivery.claimToken,
      ids: [],
    };
    entry.ids.push(delivery.id);
    succeededBy.set(group, entry);
  }
  for (const { statusCode, token, ids } of succeededBy.values()) {
    const updated = await tx
      .update(deliveries)
      .set({
        status: "succeeded",
        attemptCount: sql`${deliveries.attemptCount} + 1`,
        nextAttemptAt: null,
        leaseExpiresAt: null,
        lastStatusCode: statusCode,
        lastError: null,
        completedAt,
      })
      .where(and(idIn(tx, deliveries.id, ids), eq(deliveries.claimToken, token)))
      .returning({ id: deliveries.id });
    for (const { id } of updated) current.add(id);
    dispositions.succeeded += updated.length;
  }
  const failed = outcomes.filter((o) => !o.result.ok);
  if (failed.length > 0) {
    const found = await tx
      .select({ id: deliveries.id, claimToken: deliveries.claimToken })
      .from(deliveries)
      .where(
        idIn(
          tx,
          deliveries.id,
          failed.map((o) => o.delivery.id),
        ),
      );
    const tokens = new Map(found.map((row) => [row.id, row.claimToken]));
    for (const { delivery } of failed) {
      if (tokens.get(delivery.id) === delivery.claimToken) current.add(delivery.id);
    }
  }
  const live = outcomes.filter((o) => current.has(o.delivery.id));
  if (live.length === 0) return { disabled: [], dispositions, superseded: outcomes.length };
  await insertSqliteAttempts(tx, live);
  return finishBatch(tx, clock, live, outcomes.length - live.length, dispositions, {
    completedAt,
  });
}

/** Failed attempts rescheduled or dropped, then the endpoints' streaks (both engines). */
async function finishBatch(
  tx: Db,
  clock: Clock,
  live: AttemptOutcome[],
  superseded: number,
  dispositions: BatchDispositions,
  context: { completedAt: Date; endpoints?: EndpointState[] },
): Promise<RecordedBatch> {
  if (live.length === 0) return { disabled: [], dispositions, superseded };
  const { deliveries } = tx.t;
  const { completedAt } = context;
  const failed = live.filter((o) => !o.result.ok);
  if (tx.engine === "postgres") {
    // One statement for every failed attempt, none when all succeeded.
    const moved =
      failed.length === 0
        ? { retryScheduled: 0, dropped: 0 }
        : await rescheduleOnPostgres(
            tx,
            failed.map(({ delivery, result }) => ({
              id: delivery.id,
              claimToken: delivery.claimToken,
              attemptNumber: delivery.attemptCount + 1,
              retryAt: nextRetryAt(delivery.attemptCount + 1, result.startedAt),
              statusCode: result.statusCode,
              error: describeFailure(result),
            })),
            completedAt,
          );
    dispositions.retryScheduled += moved.retryScheduled;
    dispositions.dropped += moved.dropped;
  } else {
    // SQLite: one statement per failed attempt, under its single writer.
    for (const { delivery, result } of failed) {
      const attemptNumber = delivery.attemptCount + 1;
      const retryAt = nextRetryAt(attemptNumber, result.startedAt);
      // A delivery cancelled meanwhile (endpoint paused or disabled) stays cancelled.
      const stillPending = and(
        eq(deliveries.id, delivery.id),
        eq(deliveries.status, "pending"),
        eq(deliveries.claimToken, delivery.claimToken),
      );
      const changed = await tx
        .update(deliveries)
        .set(
          retryAt
            ? {
                attemptCount: attemptNumber,
                nextAttemptAt: retryAt,
                leaseExpiresAt: null,
                lastStatusCode: result.statusCode,
                lastError: describeFailure(result),
              }
            : {
                status: "dropped",
                attemptCount: attemptNumber,
                nextAttemptAt: null,
                leaseExpiresAt: null,
                lastStatusCode: result.statusCode,
                lastError: describeFailure(result),
                completedAt,
              },
        )
        .where(stillPending)
        .returning({ id: deliveries.id });
      if (retryAt) dispositions.retryScheduled += changed.length;
      else dispositions.dropped += changed.length;
    }
  }
  return {
    disabled: await updateStreaks(tx, clock, live, context.endpoints),
    dispositions,
    superseded,
  };
}

/**
 * Writes a batch of finished attempts in one transaction; returns the endpoints it disabled
 * and where the deliveries ended.
 */
export async function recordOutcomes(
  db: Db,
  clock: Clock,
  outcomes: AttemptOutcome[],
): Promise<RecordedBatch> {
  if (outcomes.length === 0)
    return {
      disabled: [],
      dispositions: { succeeded: 0, retryScheduled: 0, dropped: 0 },
      superseded: 0,
    };
  return db.write((tx) => recordBatch(tx, clock, outcomes), { purpose: "delivery_outcomes" });
}
