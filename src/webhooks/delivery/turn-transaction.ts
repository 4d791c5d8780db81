// A turn's writes in one transaction: the outcome batch, then the claim. On SQLite always: it has
// one write lock for every process on the file, so a turn that took it twice waited for it twice
// behind other writers and paid two BEGIN/COMMITs with their WAL writes; the claim's rows also
// share pages with the batch's. On PostgreSQL when the batch holds successes only (the usual case
// under load), read committed: a lease ends only when its outcome is committed and each endpoint
// may hold a few leases across the cluster, so with the two in transactions of their own the
// claim, taken while sends that had just ended still held theirs, found little room every other
// turn (BENCHMARKS.md, 2026-11-28); here it sees the leases the batch has just ended, and the
// turn waits for one commit instead of two. A batch with failures keeps its serializable
// transaction there (its streaks are decided on the statement's answer), and the claim follows
// in its own (dispatcher.ts).
import type { Engine } from "../../db/store.ts";
import type { AttemptOutcome } from "./attempt-outcome.ts";
import type { ClaimedDelivery } from "./claimed-delivery.ts";
import { type ClaimPlan, takeClaimIn } from "./claims.ts";
import {
  countAttempts,
  type OutcomeRecorderDeps,
  reportNotRecorded,
  reportRecorded,
} from "./outcome-recorder.ts";
import { recordOutcomesIn } from "./outcomes.ts";
import { sqliteBatch } from "./outcomes-sqlite.ts";

/** Whether a turn's batch and its claim share one transaction on this engine. */
export const sharesTurnTransaction = (engine: Engine, batch: readonly AttemptOutcome[]): boolean =>
  engine === "sqlite" || batch.every((outcome) => outcome.result.ok);

/**
 * Records `batch` and takes `plan`'s rows in one write transaction; returns the claimed
 * deliveries. A failure undoes both: the attempts' leases run out and they are sent again, the
 * planned rows stay due (at-least-once, as when either fails alone).
 */
export async function recordAndClaim(
  deps: OutcomeRecorderDeps,
  batch: AttemptOutcome[],
  plan: ClaimPlan | undefined,
): Promise<ClaimedDelivery[]> {
  const { engine } = deps.db;
  if (!sharesTurnTransaction(engine, batch)) {
    throw new Error("a batch with failures has a turn of its own");
  }
  countAttempts(deps, batch);
  // SQLite: the batch's parameters are built before the write lock is taken.
  const parameters = engine === "sqlite" && batch.length > 0 ? sqliteBatch(batch) : undefined;
  try {
    const { recorded, claimed } = await deps.db.write(
      async (tx) => {
        const recorded = await recordOutcomesIn(tx, deps.clock, batch, parameters);
        return { recorded, claimed: plan ? await takeClaimIn(tx, plan) : [] };
      },
      engine === "sqlite"
        ? { purpose: "delivery_turn" }
        : { isolation: "read committed", purpose: "delivery_turn" },
    );
    if (batch.length > 0) reportRecorded(deps, batch, recorded);
    return claimed;
  } catch (error) {
    if (batch.length > 0) reportNotRecorded(deps, batch, error);
    if (plan) deps.log.error("claiming deliveries failed", { error });
    return [];
  }
}
