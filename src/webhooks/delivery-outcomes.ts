// Recording a batch of finished attempts in one transaction (hot path: DESIGN.md says batch
// writes): every attempt is stored, each delivery moves on (succeeded, retry scheduled from
// the attempt's time, or dropped after the sixth retry), and each endpoint's failure streak is
// updated in the order the attempts finished: one success resets it to 0, and the failure that
// brings it to exactly 20 disables the endpoint, cancels its pending deliveries and queues the
// owner's e-mail (spec 3, 6). Plain SQL compiled once, as in delivery-claims.ts (hot path).
import type { Clock } from "../clock.ts";
import type { Database } from "../db/open.ts";
import type { ClaimedDelivery } from "./delivery-claims.ts";
import { queueDisabledNotice } from "./disable-notice.ts";
import { cancelPendingDeliveries } from "./endpoint-state.ts";
import { failuresBeforeDisabling, nextRetryAt } from "./retry-schedule.ts";
import type { SendResult } from "./sender.ts";

export interface AttemptOutcome {
  delivery: ClaimedDelivery;
  result: SendResult;
}

/** How many deliveries of a batch ended where (for the metrics). */
export interface BatchDispositions {
  succeeded: number;
  retryScheduled: number;
  dropped: number;
}

export interface RecordedBatch {
  disabled: DisabledEndpoint[];
  dispositions: BatchDispositions;
}

export interface DisabledEndpoint {
  endpointId: string;
  serviceAccountId: string;
  reason: string;
}

function describeFailure(result: SendResult): string {
  return result.errorMessage ?? result.errorClass ?? "failed";
}

const existingSql = "SELECT id FROM deliveries WHERE id IN (SELECT value FROM json_each(?1))";

const insertAttemptsSql = `
  INSERT INTO delivery_attempts
    (delivery_id, attempt_number, started_at, duration_ms, outcome, status_code, error_class, error_message)
  SELECT value ->> 'deliveryId', value ->> 'attemptNumber', value ->> 'startedAt',
         value ->> 'durationMs', value ->> 'outcome', value ->> 'statusCode',
         value ->> 'errorClass', value ->> 'errorMessage'
  FROM json_each(?1)`;

const succeededSql = `
  UPDATE deliveries SET status = 'succeeded', attempt_count = ?2, next_attempt_at = NULL,
    lease_expires_at = NULL, last_status_code = ?3, last_error = NULL, completed_at = ?4
  WHERE id = ?1`;

// A delivery cancelled meanwhile (endpoint paused or disabled) stays cancelled.
const retrySql = `
  UPDATE deliveries SET attempt_count = ?2, next_attempt_at = ?3, lease_expires_at = NULL,
    last_status_code = ?4, last_error = ?5
  WHERE id = ?1 AND status = 'pending'`;

const droppedSql = `
  UPDATE deliveries SET status = 'dropped', attempt_count = ?2, next_attempt_at = NULL,
    lease_expires_at = NULL, last_status_code = ?3, last_error = ?4, completed_at = ?5
  WHERE id = ?1 AND status = 'pending'`;

const endpointsSql = `
  SELECT id, status, failure_count AS failureCount, service_account_id AS serviceAccountId, url
  FROM webhook_endpoints WHERE id IN (SELECT value FROM json_each(?1))`;

const failureCountSql = "UPDATE webhook_endpoints SET failure_count = ?2 WHERE id = ?1";

const disableSql = `
  UPDATE webhook_endpoints SET status = 'disabled', failure_count = ?2, disabled_reason = ?3,
    disabled_at = ?4, updated_at = ?4
  WHERE id = ?1`;

type Store = Pick<Database, "db" | "sqlite">;

interface EndpointState {
  id: string;
  status: string;
  failureCount: number;
  serviceAccountId: string;
  url: string;
}

function updateStreaks(
  { db, sqlite }: Store,
  clock: Clock,
  outcomes: AttemptOutcome[],
): DisabledEndpoint[] {
  const endpointIds = [...new Set(outcomes.map((o) => o.delivery.endpointId))];
  const endpoints = sqlite
    .query<EndpointState, [string]>(endpointsSql)
    .all(JSON.stringify(endpointIds));
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
      sqlite.query(disableSql).run(endpoint.id, endpoint.count, endpoint.disabledBy, now.getTime());
      cancelPendingDeliveries(db, endpoint.id, now, "endpoint disabled");
      queueDisabledNotice(db, clock, endpoint, endpoint.disabledBy, now);
      disabled.push({
        endpointId: endpoint.id,
        serviceAccountId: endpoint.serviceAccountId,
        reason: endpoint.disabledBy,
      });
    } else if (endpoint.count !== endpoint.failureCount) {
      sqlite.query(failureCountSql).run(endpoint.id, endpoint.count);
    }
  }
  return disabled;
}

function recordBatch(store: Store, clock: Clock, outcomes: AttemptOutcome[]): RecordedBatch {
  const { sqlite } = store;
  // A delivery removed meanwhile (its endpoint was removed) has nothing left to update.
  const existing = new Set(
    sqlite
      .query<{ id: string }, [string]>(existingSql)
      .all(JSON.stringify(outcomes.map((o) => o.delivery.id)))
      .map((row) => row.id),
  );
  const live = outcomes.filter((o) => existing.has(o.delivery.id));
  const dispositions: BatchDispositions = { succeeded: 0, retryScheduled: 0, dropped: 0 };
  if (live.length === 0) return { disabled: [], dispositions };
  sqlite.query(insertAttemptsSql).run(
    JSON.stringify(
      live.map(({ delivery, result }) => ({
        deliveryId: delivery.id,
        attemptNumber: delivery.attemptCount + 1,
        startedAt: result.startedAt.getTime(),
        durationMs: result.durationMs,
        outcome: result.ok ? "succeeded" : "failed",
        statusCode: result.statusCode,
        errorClass: result.errorClass,
        errorMessage: result.errorMessage,
      })),
    ),
  );
  const completedAt = clock.now().getTime();
  for (const { delivery, result } of live) {
    const attemptNumber = delivery.attemptCount + 1;
    if (result.ok) {
      sqlite.query(succeededSql).run(delivery.id, attemptNumber, result.statusCode, completedAt);
      dispositions.succeeded++;
      continue;
    }
    const retryAt = nextRetryAt(attemptNumber, result.startedAt);
    if (retryAt) {
      dispositions.retryScheduled += sqlite
        .query(retrySql)
        .run(
          delivery.id,
          attemptNumber,
          retryAt.getTime(),
          result.statusCode,
          describeFailure(result),
        ).changes;
    } else {
      dispositions.dropped += sqlite
        .query(droppedSql)
        .run(
          delivery.id,
          attemptNumber,
          result.statusCode,
          describeFailure(result),
          completedAt,
        ).changes;
    }
  }
  return { disabled: updateStreaks(store, clock, live), dispositions };
}

/**
 * Writes a batch of finished attempts in one transaction; returns the endpoints it disabled
 * and where the deliveries ended.
 */
export function recordOutcomes(
  store: Store,
  clock: Clock,
  outcomes: AttemptOutcome[],
): RecordedBatch {
  if (outcomes.length === 0)
    return { disabled: [], dispositions: { succeeded: 0, retryScheduled: 0, dropped: 0 } };
  return store.sqlite.transaction(() => recordBatch(store, clock, outcomes)).immediate();
}
