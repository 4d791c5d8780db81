// Recording finished attempts (one batch per turn): metrics for every attempt (they reached the
// network even if recording fails), one transaction for the batch (outcomes.ts), then
// logs for disabled endpoints and failed attempts. A batch that cannot be recorded is logged and
// dropped: its leases run out and the deliveries are sent again (at-least-once).
import type { Clock } from "../../core/clock.ts";
import type { Db } from "../../db/store.ts";
import type { Logger } from "../../log/log.ts";
import type { Metrics } from "../../metrics/metrics.ts";
import type { AttemptOutcome } from "./attempt-outcome.ts";
import { recordOutcomes } from "./outcomes.ts";

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
  const { log, metrics } = deps;
  for (const { result } of batch) metrics?.deliveryAttempt(result);
  try {
    const { disabled, dispositions, superseded } = await recordOutcomes(deps.db, deps.clock, batch);
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
  } catch (error) {
    log.error("recording delivery attempts failed", { error, attempts: batch.length });
  }
}
