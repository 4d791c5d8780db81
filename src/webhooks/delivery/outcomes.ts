// Recording a batch of finished attempts in one transaction (writes on the hot path are
// batched): every attempt is stored, each delivery moves on (succeeded, retry scheduled from
// the attempt's time, or dropped after the sixth retry), and each endpoint's failure streak is
// updated in the order the attempts finished: one success resets it to 0, and the failure that
// brings it to exactly 20 disables the endpoint, cancels its pending deliveries and queues the
// owner's e-mail (spec 3, 6).
import { eq } from "drizzle-orm";
import type { Clock } from "../../core/clock.ts";
import type { Db } from "../../db/store.ts";
import { cancelPendingDeliveries } from "../endpoints/state.ts";
import type { AttemptOutcome, EndpointState } from "./attempt-outcome.ts";
import { queueDisabledNotice } from "./disable-notice.ts";
import { recordOnPostgres, rescheduleOnPostgres } from "./outcomes-postgres.ts";
import {
  recordOnSqlite,
  rescheduleOnSqlite,
  type SqliteBatch,
  setFailureCountOnSqlite,
  sqliteBatch,
} from "./outcomes-sqlite.ts";
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
  /** The batch's endpoints, read with its first statements. */
  endpoints: EndpointState[],
): Promise<DisabledEndpoint[]> {
  const { webhookEndpoints } = tx.t;
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
      if (tx.engine === "sqlite") {
        setFailureCountOnSqlite(tx, endpoint.id, endpoint.count);
        continue;
      }
      await tx
        .update(webhookEndpoints)
        .set({ failureCount: endpoint.count })
        .where(eq(webhookEndpoints.id, endpoint.id));
    }
  }
  return disabled;
}

async function recordBatch(
  tx: Db,
  clock: Clock,
  outcomes: AttemptOutcome[],
  /** SQLite: the batch's parameters, built before the write lock was taken. */
  sqlite: SqliteBatch | undefined,
): Promise<RecordedBatch> {
  const dispositions: BatchDispositions = { succeeded: 0, retryScheduled: 0, dropped: 0 };
  const completedAt = clock.now();
  const recorded =
    tx.engine === "postgres"
      ? await recordOnPostgres(tx, outcomes, completedAt)
      : recordOnSqlite(tx, sqlite ?? sqliteBatch(outcomes), completedAt);
  dispositions.succeeded = recorded.succeeded;
  const live = outcomes.filter((o) => recorded.live.has(o.delivery.id));
  return finishBatch(tx, clock, live, outcomes.length - live.length, dispositions, {
    completedAt,
    endpoints: recorded.endpoints,
  });
}

/** Failed attempts rescheduled or dropped, then the endpoints' streaks (both engines). */
async function finishBatch(
  tx: Db,
  clock: Clock,
  live: AttemptOutcome[],
  superseded: number,
  dispositions: BatchDispositions,
  context: { completedAt: Date; endpoints: EndpointState[] },
): Promise<RecordedBatch> {
  if (live.length === 0) return { disabled: [], dispositions, superseded };
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
      const changed = rescheduleOnSqlite(
        tx,
        {
          id: delivery.id,
          claimToken: delivery.claimToken,
          attemptNumber,
          retryAt: retryAt ?? undefined,
          statusCode: result.statusCode,
          error: describeFailure(result),
        },
        completedAt,
      );
      if (!changed) continue;
      if (retryAt) dispositions.retryScheduled += 1;
      else dispositions.dropped += 1;
    }
  }
  return {
    disabled: await updateStreaks(tx, clock, live, context.endpoints),
    dispositions,
    superseded,
  };
}

const nothingRecorded = (): RecordedBatch => ({
  disabled: [],
  dispositions: { succeeded: 0, retryScheduled: 0, dropped: 0 },
  superseded: 0,
});

/**
 * Writes a batch of finished attempts in one transaction; returns the endpoints it disabled
 * and where the deliveries ended.
 */
export async function recordOutcomes(
  db: Db,
  clock: Clock,
  outcomes: AttemptOutcome[],
): Promise<RecordedBatch> {
  if (outcomes.length === 0) return nothingRecorded();
  const sqlite = db.engine === "sqlite" ? sqliteBatch(outcomes) : undefined;
  // PostgreSQL, successes only: one statement does all (outcomes-postgres.ts), so COMMIT leaves
  // with it.
  const oneStatement = db.engine === "postgres" && outcomes.every((o) => o.result.ok);
  return db.write((tx) => recordBatch(tx, clock, outcomes, sqlite), {
    purpose: "delivery_outcomes",
    commitWithWork: oneStatement,
  });
}

/**
 * The same inside the caller's write transaction (SQLite: a turn's, with its claim);
 * `sqlite` is sqliteBatch(outcomes), built before the write lock was taken.
 */
export function recordOutcomesIn(
  tx: Db,
  clock: Clock,
  outcomes: AttemptOutcome[],
  sqlite: SqliteBatch | undefined,
): Promise<RecordedBatch> {
  if (outcomes.length === 0) return Promise.resolve(nothingRecorded());
  return recordBatch(tx, clock, outcomes, sqlite);
}
