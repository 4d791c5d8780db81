// Recording finished attempts (one batch per turn): metrics for every attempt (they reached the
// network even if recording fails), one transaction for the batch (outcomes.ts), then
// logs for disabled endpoints and failed attempts. A batch that cannot be recorded is logged and
// dropped: its leases run out and the deliveries are sent again (at-least-once).
import type { Clock } from "../../core/clock.ts";
import type { Db } from "../../db/store.ts";
import type { Logger } from "../../log/log.ts";
import type { Metrics } from "../../metrics/metrics.ts";
import type { AttemptOutcome } from "./attempt-outcome.ts";
import { type RecordedBatch, recordOutcomes } from "./outcomes.ts";

export interface OutcomeRecorderDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  metrics?: Pick<Metrics, "deliveryAttempt" | "deliveryFinished" | "endpointDisabled">;
  /** Called when an endpoint was disabled and its owner's e-mail queued. */
  onMailQueued?: () => void;
}

export async function recordFinishedAttempts(
  deps: OutcomeRecorderDeps,
  batch: AttemptOutcome[],
): Promise<void> {
  if (batch.length === 0) return;
  countAttempts(deps, batch);
  try {
    reportRecorded(deps, batch, await recordOutcomes(deps.db, deps.clock, batch));
  } catch (error) {
    reportNotRecorded(deps, batch, error);
  }
}

/** Metrics for every attempt, before its batch is written (they reached the network anyway). */
export function countAttempts(deps: OutcomeRecorderDeps, batch: AttemptOutcome[]): void {
  for (const { result } of batch) deps.metrics?.deliveryAttempt(result);
}

/** A batch that could not be written: its leases run out and the deliveries are sent again. */
export function reportNotRecorded(
  deps: OutcomeRecorderDeps,
  batch: AttemptOutcome[],
  error: unknown,
): void {
  deps.log.error("recording delivery attempts failed", { error, attempts: batch.length });
}

/** Metrics and logs of a written batch: where deliveries ended, disabled endpoints, failures. */
export function reportRecorded(
  deps: OutcomeRecorderDeps,
  batch: AttemptOutcome[],
  { disabled, dispositions, superseded }: RecordedBatch,
): void {
  const { log, metrics } = deps;
  if (superseded > 0) {
    log.info("late delivery outcomes not recorded: removed, or claimed again after the lease", {
      attempts: superseded,
    });
  }
  metrics?.deliveryFinished("succeeded", dispositions.succeeded);
  metrics?.deliveryFinished("retry_scheduled", dispositions.retryScheduled);
  metrics?.deliveryFinished("dropped", dispositions.dropped);
  for (const endpoint of disabled) {
    metrics?.endpointDisabled();
    log.warn("webhook endpoint disabled", {
      endpointId: endpoint.endpointId,
      serviceAccountId: endpoint.serviceAccountId,
      reason: endpoint.reason,
    });
  }
  if (disabled.length > 0) deps.onMailQueued?.();
  for (const { delivery, result } of batch) {
    if (result.ok) continue;
    log.debug("delivery attempt failed", {
      deliveryId: delivery.id,
      endpointId: delivery.endpointId,
      attempt: delivery.attemptCount + 1,
      statusCode: result.statusCode,
      errorClass: result.errorClass,
    });
  }
}
