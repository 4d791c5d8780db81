// A turn's writes in one transaction: the outcome batch, then the claim. On SQLite always: it has
// one write lock for every process on the file, so a turn that took it twice waited for it twice
// behind other writers and paid two BEGIN/COMMITs with their WAL writes; the claim's rows also
// share pages with the batch's. The claim's candidates are read and the batch's parameters
// built before the lock is taken.
//
// On PostgreSQL when the batch holds successes only (the usual case under load), read committed:
// a lease ends only when its outcome is committed and each endpoint may hold a few leases across
// the cluster, so with the two in transactions of their own the claim, taken while sends that had
// just ended still held theirs, found little room every other turn (BENCHMARKS.md, 2026-11-28);
// here it sees the leases the batch has just ended. The turn is two round trips: BEGIN, the
// batch's statement and the candidates' read leave together; once they are answered, the claim's
// statements leave with COMMIT (2026-12-01: four round trips before, each waiting behind the
// sends the event loop was busy with). A batch with failures keeps its serializable transaction
// there (its streaks are decided on the statement's answer), and the claim follows in its own
// (dispatcher.ts).
import type { Db, Engine } from "../../db/store.ts";
import type { AttemptOutcome } from "./attempt-outcome.ts";
import type { ClaimedDelivery } from "./claimed-delivery.ts";
import {
  type ClaimRequest,
  claimWithCommitOnPostgres,
  planClaim,
  sendableAfterClaim,
  takeClaim,
} from "./claims.ts";
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
 * Records `batch` and claims what `request` asks for (nothing when it is undefined) in one write
 * transaction; returns the claimed deliveries. A failure undoes both: the attempts' leases run
 * out and they are sent again, the rows that would have been claimed stay due (at-least-once, as
 * when either fails alone).
 */
export async function recordAndClaim(
  deps: OutcomeRecorderDeps,
  batch: AttemptOutcome[],
  request: ClaimRequest | undefined,
): Promise<ClaimedDelivery[]> {
  const { db, log } = deps;
  if (!sharesTurnTransaction(db.engine, batch)) {
    throw new Error("a batch with failures has a turn of its own");
  }
  if (db.engine === "postgres") return recordAndClaimOnPostgres(deps, batch, request);
  let plan: Awaited<ReturnType<typeof planClaim>>;
  try {
    plan = request ? await planClaim(db, request) : undefined;
  } catch (error) {
    log.error("claiming deliveries failed", { error });
  }
  if (batch.length === 0 && !plan) return [];
  countAttempts(deps, batch);
  const parameters = batch.length > 0 ? sqliteBatch(batch) : undefined;
  try {
    const { recorded, claimed } = await db.write(
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
    if (plan) log.error("claiming deliveries failed", { error });
    return [];
  }
}

async function recordAndClaimOnPostgres(
  deps: OutcomeRecorderDeps,
  batch: AttemptOutcome[],
  request: ClaimRequest | undefined,
): Promise<ClaimedDelivery[]> {
  if (batch.length === 0 && !request) return [];
  countAttempts(deps, batch);
  let committed: Awaited<ReturnType<typeof turnOnPostgres>>;
  try {
    committed = await deps.db.write((tx) => turnOnPostgres(tx, deps, batch, request), {
      isolation: "read committed",
      purpose: "delivery_turn",
    });
  } catch (error) {
    if (batch.length > 0) reportNotRecorded(deps, batch, error);
    if (request) deps.log.error("claiming deliveries failed", { error });
    return [];
  }
  const { recorded, rows, plan } = committed;
  if (batch.length > 0) reportRecorded(deps, batch, recorded);
  if (!plan) return [];
  try {
    return await sendableAfterClaim(deps.db, rows, plan);
  } catch (error) {
    // The claimed rows stay leased to this claim; the next claim after the lease cancels them.
    deps.log.error("claiming deliveries failed", { error });
    return [];
  }
}

/** The turn's transaction on PostgreSQL, in two round trips (above). */
async function turnOnPostgres(
  tx: Db,
  deps: OutcomeRecorderDeps,
  batch: AttemptOutcome[],
  request: ClaimRequest | undefined,
) {
  // Both statements start before either is awaited, so they leave with BEGIN.
  const recording = recordOutcomesIn(tx, deps.clock, batch, undefined);
  const planning = request ? planClaim(tx, request) : Promise.resolve(undefined);
  const [recorded, plan] = await Promise.all([recording, planning]);
  const rows = plan ? await claimWithCommitOnPostgres(tx, plan) : [];
  return { recorded, rows, plan };
}
