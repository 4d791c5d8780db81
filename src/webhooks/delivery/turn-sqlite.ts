// A turn's writes on SQLite in one transaction: the outcome batch, then the claim. SQLite has one
// write lock for every process on the file, so a turn that took it twice (the batch, then the
// claim) waited for it twice behind other writers and paid two BEGIN/COMMITs with their WAL
// writes; the claim's rows also share pages with the batch's. PostgreSQL does the same for a
// batch of successes only (turn-postgres.ts); a batch with failures runs serializable on its own.

import type { AttemptOutcome } from "./attempt-outcome.ts";
import type { ClaimedDelivery } from "./claimed-delivery.ts";
import { type ClaimPlan, takeClaim } from "./claims.ts";
import {
  countAttempts,
  type OutcomeRecorderDeps,
  reportNotRecorded,
  reportRecorded,
} from "./outcome-recorder.ts";
import { recordOutcomesIn } from "./outcomes.ts";
import { sqliteBatch } from "./outcomes-sqlite.ts";

/**
 * Records `batch` and takes `plan`'s rows in one write transaction; returns the claimed
 * deliveries. A failure undoes both: the attempts' leases run out and they are sent again, the
 * planned rows stay due (at-least-once, as when either fails alone).
 */
export async function recordAndClaimOnSqlite(
  deps: OutcomeRecorderDeps,
  batch: AttemptOutcome[],
  plan: ClaimPlan | undefined,
): Promise<ClaimedDelivery[]> {
  countAttempts(deps, batch);
  // The batch's parameters are built before the write lock is taken.
  const parameters = batch.length > 0 ? sqliteBatch(batch) : undefined;
  try {
    const { recorded, claimed } = await deps.db.write(
      async (tx) => {
        const recorded = await recordOutcomesIn(tx, deps.clock, batch, parameters);
        return { recorded, claimed: plan ? await takeClaim(tx, plan) : [] };
      },
      { purpose: "delivery_turn" },
    );
    if (batch.length > 0) reportRecorded(deps, batch, recorded);
    return claimed;
  } catch (error) {
    if (batch.length > 0) reportNotRecorded(deps, batch, error);
    if (plan) deps.log.error("claiming deliveries failed", { error });
    return [];
  }
}
