// A turn's writes on PostgreSQL in one read-committed transaction when its outcome batch holds
// successes only (the usual case under load): the batch's one statement, then the claim's. A
// lease ends only when its outcome is recorded, and each endpoint may hold a few leases across
// the cluster, so with the two in transactions of their own a lease lived from its claim's
// commit to the commit of the next turn's batch, and the claim, taken while sends that had just
// ended still held theirs, found little room every other turn (BENCHMARKS.md, 2026-11-28). Here
// the claim's statement sees the leases this turn's batch has just ended, and the turn waits
// for one commit instead of two. A batch with failures keeps its serializable transaction (its
// streaks are decided on the statement's answer), and the claim follows in its own.
import type { AttemptOutcome } from "./attempt-outcome.ts";
import type { ClaimedDelivery } from "./claimed-delivery.ts";
import { type ClaimPlan, sendableOnPostgres, takeClaimOnPostgresIn } from "./claims.ts";
import {
  countAttempts,
  type OutcomeRecorderDeps,
  reportNotRecorded,
  reportRecorded,
} from "./outcome-recorder.ts";
import { recordOutcomesIn } from "./outcomes.ts";

/** Whether a batch and a claim may share one read-committed transaction. */
export const sharesTurnOnPostgres = (batch: readonly AttemptOutcome[]): boolean =>
  batch.every((outcome) => outcome.result.ok);

/**
 * Records `batch` (successes only) and takes `plan`'s rows in one transaction; returns the
 * claimed deliveries. A failure undoes both: the attempts' leases run out and they are sent
 * again, the planned rows stay due (at-least-once, as when either fails alone).
 */
export async function recordAndClaimOnPostgres(
  deps: OutcomeRecorderDeps,
  batch: AttemptOutcome[],
  plan: ClaimPlan | undefined,
): Promise<ClaimedDelivery[]> {
  if (!sharesTurnOnPostgres(batch)) throw new Error("a batch with failures has a turn of its own");
  countAttempts(deps, batch);
  try {
    const { recorded, rows } = await deps.db.write(
      async (tx) => {
        const recorded = await recordOutcomesIn(tx, deps.clock, batch, undefined);
        return { recorded, rows: plan ? await takeClaimOnPostgresIn(tx, plan) : [] };
      },
      { isolation: "read committed", purpose: "delivery_turn" },
    );
    if (batch.length > 0) reportRecorded(deps, batch, recorded);
    return plan ? await sendableOnPostgres(deps.db, rows, plan) : [];
  } catch (error) {
    if (batch.length > 0) reportNotRecorded(deps, batch, error);
    if (plan) deps.log.error("claiming deliveries failed", { error });
    return [];
  }
}
