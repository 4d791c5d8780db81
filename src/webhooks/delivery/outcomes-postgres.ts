// Recording a batch of attempts on PostgreSQL in few statements: the first part in one (one
// round trip instead of four): successes move on (succeeded, attempt_count + 1) where the row still carries
// the attempt's claim token, failures are matched to their claim token the same way, every attempt
// whose claim still holds is stored, and the batch's endpoints are read for the failure streaks.
// A batch of successes only also ends its endpoints' streaks in that statement, so it is the
// whole transaction and COMMIT is sent with it (one round trip). Otherwise failures are then
// rescheduled in one more statement; the rules are outcomes.ts's, and the streaks follow there.
import { sql } from "drizzle-orm";
import { newId } from "../../core/ids.ts";
import type { Db } from "../../db/store.ts";
import type { AttemptOutcome, EndpointState } from "./attempt-outcome.ts";

export interface RecordedOnPostgres {
  /** Deliveries whose claim still held (their attempts are stored). */
  live: Set<string>;
  succeeded: number;
  endpoints: EndpointState[];
}

interface RawRow {
  kind: "live" | "endpoint";
  id: string;
  succeeded: boolean | null;
  status: string | null;
  failure_count: number | null;
  service_account_id: string | null;
  url: string | null;
}

export async function recordOnPostgres(
  tx: Db,
  outcomes: AttemptOutcome[],
  completedAt: Date,
): Promise<RecordedOnPostgres> {
  const column = <T>(of: (outcome: AttemptOutcome) => T) => sql.param(outcomes.map(of));
  const endpointIds = [...new Set(outcomes.map((o) => o.delivery.endpointId))];
  const allSucceeded = outcomes.every((o) => o.result.ok);
  const rows = await tx.rows<RawRow>(sql`
    WITH batch AS (
      SELECT * FROM unnest(
        ${column(() => newId())}::text[], ${column((o) => o.delivery.id)}::text[],
        ${column((o) => o.delivery.claimToken)}::text[], ${column((o) => o.result.ok)}::boolean[],
        ${column((o) => o.delivery.attemptCount + 1)}::int[],
        ${column((o) => o.result.startedAt.getTime())}::bigint[],
        ${column((o) => Math.round(o.result.durationMs))}::int[],
        ${column((o) => o.result.statusCode)}::int[], ${column((o) => o.result.errorClass)}::text[],
        ${column((o) => o.result.errorMessage)}::text[],
        ${column((o) => o.result.signature ?? null)}::text[]
      ) AS b(attempt_id, delivery_id, token, ok, attempt_number, started_at, duration_ms,
             status_code, error_class, error_message, signature)
    ),
    succeeded AS (
      -- attempt_count moves by one, as the claim left it (the claim token guarantees no other
      -- attempt was recorded since).
      UPDATE deliveries SET status = 'succeeded', attempt_count = deliveries.attempt_count + 1,
        next_attempt_at = NULL, lease_expires_at = NULL, last_status_code = batch.status_code,
        last_error = NULL, completed_at = ${completedAt.getTime()}
      FROM batch
      WHERE deliveries.id = batch.delivery_id AND batch.ok AND deliveries.claim_token = batch.token
      RETURNING deliveries.id, deliveries.endpoint_id
    ),
    failed AS (
      SELECT deliveries.id FROM deliveries JOIN batch ON deliveries.id = batch.delivery_id
      WHERE NOT batch.ok AND deliveries.claim_token = batch.token
    ),
    live AS (
      SELECT id, true AS succeeded FROM succeeded UNION ALL SELECT id, false FROM failed
    ),
    stored AS (
      INSERT INTO delivery_attempts (id, delivery_id, attempt_number, started_at, duration_ms,
        outcome, status_code, error_class, error_message, signature)
      SELECT attempt_id, delivery_id, attempt_number, started_at, duration_ms,
        CASE WHEN ok THEN 'succeeded' ELSE 'failed' END, status_code, error_class, error_message,
        signature
      FROM batch WHERE delivery_id IN (SELECT id FROM live)
    ),
    -- A batch of successes only: each active endpoint with one of them recorded ends its
    -- streak at 0 (outcomes.ts's rule), here, so nothing is left to write after this statement.
    reset AS (
      UPDATE webhook_endpoints SET failure_count = 0
      WHERE ${sql.param(allSucceeded)}::boolean AND status = 'active' AND failure_count <> 0
        AND id IN (SELECT endpoint_id FROM succeeded)
      RETURNING id
    )
    SELECT 'live' AS kind, id, succeeded, NULL AS status, NULL::int AS failure_count,
      NULL AS service_account_id, NULL AS url
    FROM live
    UNION ALL
    -- The statement's snapshot precedes its reset: the count as the reset left it.
    SELECT 'endpoint', id, NULL, status,
      CASE WHEN id IN (SELECT id FROM reset) THEN 0 ELSE failure_count END,
      service_account_id, url
    FROM webhook_endpoints WHERE id = ANY(${sql.param(endpointIds)}::text[])`);
  const live = new Set<string>();
  let succeeded = 0;
  const endpoints: EndpointState[] = [];
  for (const row of rows) {
    if (row.kind === "live") {
      live.add(row.id);
      if (row.succeeded) succeeded++;
    } else {
      endpoints.push({
        id: row.id,
        status: row.status as string,
        failureCount: Number(row.failure_count),
        serviceAccountId: row.service_account_id as string,
        url: row.url as string,
      });
    }
  }
  return { live, succeeded, endpoints };
}

export interface FailedAttempt {
  id: string;
  claimToken: string;
  attemptNumber: number;
  /** Null: the last retry failed, the delivery is dropped. */
  retryAt: Date | null;
  statusCode: number | null;
  error: string;
}

/**
 * Failed attempts in one statement: each delivery still pending under its claim is rescheduled,
 * or dropped after its last retry (outcomes.ts's rule; a delivery cancelled meanwhile
 * stays cancelled).
 */
export async function rescheduleOnPostgres(
  tx: Db,
  failed: FailedAttempt[],
  completedAt: Date,
): Promise<{ retryScheduled: number; dropped: number }> {
  const column = <T>(of: (attempt: FailedAttempt) => T) => sql.param(failed.map(of));
  const rows = await tx.rows<{ retried: boolean }>(sql`
    UPDATE deliveries SET attempt_count = f.attempt_number, next_attempt_at = f.retry_at,
      lease_expires_at = NULL, last_status_code = f.status_code, last_error = f.error,
      status = CASE WHEN f.retry_at IS NULL THEN 'dropped' ELSE deliveries.status END,
      completed_at = CASE WHEN f.retry_at IS NULL THEN ${completedAt.getTime()}
        ELSE deliveries.completed_at END
    FROM unnest(${column((a) => a.id)}::text[], ${column((a) => a.claimToken)}::text[],
      ${column((a) => a.attemptNumber)}::int[], ${column((a) => a.retryAt?.getTime() ?? null)}::bigint[],
      ${column((a) => a.statusCode)}::int[], ${column((a) => a.error)}::text[])
      AS f(id, token, attempt_number, retry_at, status_code, error)
    WHERE deliveries.id = f.id AND deliveries.status = 'pending' AND deliveries.claim_token = f.token
    RETURNING f.retry_at IS NOT NULL AS retried`);
  const retryScheduled = rows.filter((row) => row.retried).length;
  return { retryScheduled, dropped: rows.length - retryScheduled };
}
