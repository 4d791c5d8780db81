// Recording a batch of attempts on SQLite with statements of fixed text, prepared once per
// connection (Db.prepared): successes move on in one UPDATE per status code and claim, failures
// are matched to their claim token, the attempts whose claim still holds are stored from one
// JSON parameter, and the batch's endpoints are read for the failure streaks; failures are then
// rescheduled one statement each. Everything that needs no database (ids, the JSON of the
// attempts and of the id lists) is built before the write lock is taken. The rules are
// webhooks/delivery/outcomes.ts's; PostgreSQL's statements are webhooks/delivery/outcomes-postgres.ts.
import { newId } from "../../core/ids.ts";
import { preparedStatement } from "../../db/prepared.ts";
import type { Db } from "../../db/store.ts";
import type { AttemptOutcome, EndpointState } from "./attempt-outcome.ts";

/**
 * attempt_count moves by one, as the claim left it (the claim token guarantees no other attempt
 * was recorded since).
 */
const succeededSql = `UPDATE deliveries SET status = 'succeeded', attempt_count = attempt_count + 1,
    next_attempt_at = NULL, lease_expires_at = NULL, last_status_code = ?, last_error = NULL,
    completed_at = ?
  WHERE id IN (SELECT value FROM json_each(?)) AND claim_token = ?
  RETURNING id`;

const tokensSql = `SELECT id, claim_token AS claimToken FROM deliveries
  WHERE id IN (SELECT value FROM json_each(?))`;

const attemptsSql = `INSERT INTO delivery_attempts (id, delivery_id, attempt_number, started_at,
    duration_ms, outcome, status_code, error_class, error_message, signature)
  SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5,
    value ->> 6, value ->> 7, value ->> 8, value ->> 9
  FROM json_each(?)`;

const endpointsSql = `SELECT id, status, failure_count AS failureCount,
    service_account_id AS serviceAccountId, url
  FROM webhook_endpoints WHERE id IN (SELECT value FROM json_each(?))`;

/** A delivery cancelled meanwhile (endpoint paused or disabled) stays cancelled. */
const retrySql = `UPDATE deliveries SET attempt_count = ?, next_attempt_at = ?,
    lease_expires_at = NULL, last_status_code = ?, last_error = ?
  WHERE id = ? AND status = 'pending' AND claim_token = ?
  RETURNING id`;

const dropSql = `UPDATE deliveries SET status = 'dropped', attempt_count = ?,
    next_attempt_at = NULL, lease_expires_at = NULL, last_status_code = ?, last_error = ?,
    completed_at = ?
  WHERE id = ? AND status = 'pending' AND claim_token = ?
  RETURNING id`;

const failureCountSql = "UPDATE webhook_endpoints SET failure_count = ? WHERE id = ?";

/** A batch's parameters, built before the write lock is taken. */
export interface SqliteBatch {
  outcomes: AttemptOutcome[];
  /** Successes by status code and claim (usually one group). */
  succeeded: { statusCode: number | null; claimToken: string; idsJson: string }[];
  /** Failed deliveries' ids, as JSON; undefined when none failed. */
  failedIdsJson: string | undefined;
  endpointIdsJson: string;
  /** One attempt row per outcome, in the batch's order (attemptsSql's columns). */
  attemptRows: unknown[][];
  /** attemptRows as JSON: stored as it is when every claim still holds (the usual case). */
  attemptsJson: string;
}

export function sqliteBatch(outcomes: AttemptOutcome[]): SqliteBatch {
  const groups = new Map<
    string,
    { statusCode: number | null; claimToken: string; ids: string[] }
  >();
  const failedIds: string[] = [];
  const endpointIds = new Set<string>();
  const attemptRows: unknown[][] = [];
  for (const { delivery, result } of outcomes) {
    endpointIds.add(delivery.endpointId);
    if (result.ok) {
      const key = `${result.statusCode} ${delivery.claimToken}`;
      let group = groups.get(key);
      if (!group) {
        group = { statusCode: result.statusCode, claimToken: delivery.claimToken, ids: [] };
        groups.set(key, group);
      }
      group.ids.push(delivery.id);
    } else {
      failedIds.push(delivery.id);
    }
    attemptRows.push([
      newId(),
      delivery.id,
      delivery.attemptCount + 1,
      result.startedAt.getTime(),
      Math.round(result.durationMs),
      result.ok ? "succeeded" : "failed",
      result.statusCode,
      result.errorClass,
      result.errorMessage,
      result.signature ?? null,
    ]);
  }
  return {
    outcomes,
    succeeded: [...groups.values()].map(({ statusCode, claimToken, ids }) => ({
      statusCode,
      claimToken,
      idsJson: JSON.stringify(ids),
    })),
    failedIdsJson: failedIds.length > 0 ? JSON.stringify(failedIds) : undefined,
    endpointIdsJson: JSON.stringify([...endpointIds]),
    attemptRows,
    attemptsJson: JSON.stringify(attemptRows),
  };
}

export interface RecordedOnSqlite {
  /** Deliveries whose claim still held (their attempts are stored). */
  live: Set<string>;
  succeeded: number;
  endpoints: EndpointState[];
}

/**
 * Successes move on and every attempt whose claim still holds is stored (fencing: a dispatcher
 * that stalled past its lease cannot overwrite the attempt of the one that took the row over; a
 * delivery removed meanwhile has nothing left to update either).
 */
export function recordOnSqlite(tx: Db, batch: SqliteBatch, completedAt: Date): RecordedOnSqlite {
  const live = new Set<string>();
  let succeeded = 0;
  const completedAtMs = completedAt.getTime();
  for (const group of batch.succeeded) {
    const updated = preparedStatement(tx, succeededSql).all(
      group.statusCode,
      completedAtMs,
      group.idsJson,
      group.claimToken,
    ) as { id: string }[];
    for (const { id } of updated) live.add(id);
    succeeded += updated.length;
  }
  if (batch.failedIdsJson !== undefined) {
    const found = preparedStatement(tx, tokensSql).all(batch.failedIdsJson) as {
      id: string;
      claimToken: string | null;
    }[];
    const tokens = new Map(found.map((row) => [row.id, row.claimToken]));
    for (const { delivery, result } of batch.outcomes) {
      if (!result.ok && tokens.get(delivery.id) === delivery.claimToken) live.add(delivery.id);
    }
  }
  if (live.size === 0) return { live, succeeded, endpoints: [] };
  const attemptsJson =
    live.size === batch.outcomes.length
      ? batch.attemptsJson
      : JSON.stringify(batch.attemptRows.filter((row) => live.has(row[1] as string)));
  preparedStatement(tx, attemptsSql).run(attemptsJson);
  const endpoints = preparedStatement(tx, endpointsSql).all(
    batch.endpointIdsJson,
  ) as EndpointState[];
  return { live, succeeded, endpoints };
}

export interface SqliteFailure {
  id: string;
  claimToken: string;
  attemptNumber: number;
  /** Undefined after the last retry: the delivery is dropped. */
  retryAt: Date | undefined;
  statusCode: number | null;
  error: string;
}

/** Reschedules (or drops) one failed attempt's delivery; true when the row still was ours. */
export function rescheduleOnSqlite(tx: Db, failure: SqliteFailure, completedAt: Date): boolean {
  const changed = failure.retryAt
    ? preparedStatement(tx, retrySql).all(
        failure.attemptNumber,
        failure.retryAt.getTime(),
        failure.statusCode,
        failure.error,
        failure.id,
        failure.claimToken,
      )
    : preparedStatement(tx, dropSql).all(
        failure.attemptNumber,
        failure.statusCode,
        failure.error,
        completedAt.getTime(),
        failure.id,
        failure.claimToken,
      );
  return changed.length > 0;
}

/** An endpoint's failure streak, as the batch left it. */
export function setFailureCountOnSqlite(tx: Db, endpointId: string, failureCount: number): void {
  preparedStatement(tx, failureCountSql).run(failureCount, endpointId);
}
