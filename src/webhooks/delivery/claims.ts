// Claiming due deliveries with a lease (at-least-once: a crash mid-send loses nothing).
// A claim moves next_attempt_at (and lease_expires_at) to the lease's end in one conditional
// UPDATE, so two dispatchers (processes, instances) never claim the same row, and a dispatcher
// that dies mid-send leaves the row pending: it is due again, and re-sent, once the lease has
// run out. Candidates are read outside the transaction; the UPDATE re-checks that each is still
// pending and due, so the write lock is held only for the claim itself. On PostgreSQL the rows
// are locked with FOR UPDATE SKIP LOCKED, so instances claiming at once pass each other's rows
// by instead of waiting for them, in one statement (claims-postgres.ts); SQLite's
// single writer makes claims take turns.
import { newId } from "../../core/ids.ts";
import type { Db } from "../../db/store.ts";
import { cancelPendingDeliveries } from "../endpoints/state.ts";
import type { ClaimedDelivery, ClaimedRow } from "./claimed-delivery.ts";
import { claimOnPostgres, postgresCandidates } from "./claims-postgres.ts";
import { sqliteCandidates, sqliteLeasedCounts, sqliteTake } from "./claims-sqlite.ts";

export interface ClaimRequest {
  now: Date;
  leaseUntil: Date;
  /** At most this many rows. */
  limit: number;
  /** How many more rows each endpoint may take now (its concurrency cap minus in-flight). */
  endpointRoom(endpointId: string): number;
  /** Endpoints with no room, skipped by the query so they cannot crowd out the others. */
  fullEndpoints: string[];
  /**
   * Deliveries of one endpoint sent at once across every process on the database, at most (its
   * concurrency cap for the whole cluster): while two processes or more hold leases on it, its
   * leases in all stay within the cap; checked inside the claim's transaction (holdCap).
   */
  endpointCap?: number;
  /**
   * Leases this process may hold on an endpoint no other process holds any on (its sends stay
   * within the cap: send-slots.ts), so its queue runs ahead of its sends; the cap when unset, and
   * without a `holder` (its own leases could not be told from others').
   */
  endpointHoldCap?: number;
  /** The claiming process (service_processes.id), so others can take its leases once it is gone. */
  holder?: string;
}

/**
 * Candidates read per place to fill: the spare ones let a claim pass over endpoints without
 * room. SQLite reads them from its due index row by row, and four per place made that read a
 * fifth of a 64-row claim's CPU; full endpoints are left out by the query itself, so two do.
 */
const candidatesPerPlace = (db: Db) => (db.engine === "sqlite" ? 2 : 4);

/**
 * What a claim will take, chosen outside the transaction: the picked rows, their endpoints and
 * the claim's token (takeClaim re-checks each row under the lock).
 */
export interface ClaimPlan {
  picked: string[];
  endpointOf: Map<string, string>;
  claimToken: string;
  request: ClaimRequest;
}

/** Claims up to `limit` due deliveries, honouring each endpoint's room. */
export async function claimDueDeliveries(
  db: Db,
  request: ClaimRequest,
): Promise<ClaimedDelivery[]> {
  const plan = await planClaim(db, request);
  if (!plan) return [];
  if (db.engine === "postgres") return takeClaimOnPostgres(db, plan);
  return db.write((tx) => takeClaim(tx, plan), {
    isolation: "read committed",
    purpose: "delivery_claim",
  });
}

/** Reads the due candidates and picks within each endpoint's room; undefined when none. */
export async function planClaim(db: Db, request: ClaimRequest): Promise<ClaimPlan | undefined> {
  const limit = Math.max(request.limit * candidatesPerPlace(db), 64);
  const candidates =
    db.engine === "sqlite"
      ? sqliteCandidates(db, request.now, request.fullEndpoints, limit)
      : await postgresCandidates(db, request.now, request.fullEndpoints, limit);
  if (candidates.length === 0) return undefined;
  const taken = new Map<string, number>();
  const picked: string[] = [];
  for (const candidate of candidates) {
    if (picked.length >= request.limit) break;
    const already = taken.get(candidate.endpointId) ?? 0;
    if (already >= request.endpointRoom(candidate.endpointId)) continue;
    taken.set(candidate.endpointId, already + 1);
    picked.push(candidate.id);
  }
  if (picked.length === 0) return undefined;
  const endpointOf = new Map(candidates.map((c) => [c.id, c.endpointId]));
  return { picked, endpointOf, claimToken: newId(), request };
}

/**
 * The planned claim's statements inside the caller's read-committed transaction on PostgreSQL (a
 * turn's, after its outcome batch and the candidates' read: turn-transaction.ts), sent with
 * COMMIT behind them (`commitBehind`); the claimed rows, once committed, go through
 * sendableAfterClaim.
 */
export function claimWithCommitOnPostgres(tx: Db, plan: ClaimPlan): Promise<ClaimedRow[]> {
  const claimed = claimPlannedOnPostgres(tx, plan);
  tx.commitBehind?.();
  return claimed;
}

/**
 * The claimed rows of a committed claim to send, once rows of endpoints no longer active and
 * verified are cancelled (in a transaction of their own, only when there are any).
 */
export function sendableAfterClaim(
  db: Db,
  rows: ClaimedRow[],
  plan: ClaimPlan,
): Promise<ClaimedDelivery[]> {
  const { claimToken, request } = plan;
  if (rows.every((row) => eligible(row))) return sendableOf(db, rows, claimToken, request.now);
  return db.write((tx) => sendableOf(tx, rows, claimToken, request.now));
}

/**
 * Takes the planned rows still pending and due on PostgreSQL. The claim's statements and COMMIT
 * leave together: nothing in the transaction waits for their answer.
 */
async function takeClaimOnPostgres(db: Db, plan: ClaimPlan): Promise<ClaimedDelivery[]> {
  const rows = await db.write((tx) => claimPlannedOnPostgres(tx, plan), {
    isolation: "read committed",
    purpose: "delivery_claim",
    commitWithWork: true,
  });
  // Rows of an endpoint no longer active and verified are cancelled in a transaction of their
  // own; until then they are leased to this claim, so no one sends them (and should this
  // process die first, the next claim after the lease finds and cancels them).
  return sendableAfterClaim(db, rows, plan);
}

/** The claim's statements on PostgreSQL, inside the caller's read-committed transaction. */
function claimPlannedOnPostgres(tx: Db, plan: ClaimPlan): Promise<ClaimedRow[]> {
  const { picked, endpointOf, claimToken, request } = plan;
  const endpoints = [...new Set(picked.map((id) => endpointOf.get(id) as string))].sort();
  return claimOnPostgres(tx, {
    ids: picked,
    endpoints,
    now: request.now,
    leaseUntil: request.leaseUntil,
    claimToken,
    holder: request.holder ?? null,
    ...(request.endpointCap === undefined
      ? {}
      : {
          endpointCap: request.endpointCap,
          endpointHoldCap: holdCap(request, false),
        }),
  });
}

/**
 * Takes the planned rows still pending and due on SQLite, inside the caller's write transaction
 * (a claim's own, or a turn's after its outcome batch: turn-transaction.ts).
 */
export async function takeClaim(tx: Db, plan: ClaimPlan): Promise<ClaimedDelivery[]> {
  const { picked, endpointOf, claimToken, request } = plan;
  const now = request.now;
  const ids =
    request.endpointCap === undefined ? picked : withinClusterCap(tx, picked, endpointOf, request);
  if (ids.length === 0) return [];
  const rows = sqliteTake(tx, {
    ids,
    now,
    leaseUntil: request.leaseUntil,
    claimToken,
    holder: request.holder ?? null,
  });
  return sendableOf(tx, rows, claimToken, now);
}

/**
 * Leases one endpoint may carry after a claim by `request`'s process. Each process sends at most
 * the cap and only what it holds. A process alone on an endpoint may hold more, up to its hold
 * cap; once two processes hold leases on it, every claim keeps the total within the cap. That
 * holds as processes come and go: the claim that makes a second holder sees the first one's
 * leases and may take only what the cap leaves; claims on one endpoint take turns (SQLite's
 * single writer, PostgreSQL's endpoint locks), each seeing the ones before it. So sends to one
 * endpoint across the cluster never exceed its cap.
 */
export function holdCap(request: ClaimRequest, otherHolders: boolean): number {
  const cap = request.endpointCap as number;
  if (otherHolders || request.holder === undefined) return cap;
  return Math.max(cap, request.endpointHoldCap ?? cap);
}

/** Only active and verified endpoints receive account events (spec 3). */
const eligible = (row: ClaimedRow): boolean => row.endpointStatus === "active" && row.verified;

/**
 * The claimed rows to send. Only active and verified endpoints receive account events (spec 3):
 * a row for any other endpoint (paused or disabled a moment ago) is cancelled, never sent later.
 */
async function sendableOf(
  tx: Db,
  rows: ClaimedRow[],
  claimToken: string,
  now: Date,
): Promise<ClaimedDelivery[]> {
  const ineligible = new Set<string>();
  const sendable: ClaimedDelivery[] = [];
  for (const row of rows) {
    const { endpointStatus, verified, ...delivery } = row;
    if (!eligible(row)) ineligible.add(delivery.endpointId);
    else sendable.push({ ...delivery, claimToken });
  }
  for (const endpointId of ineligible) {
    await cancelPendingDeliveries(tx, endpointId, now, "endpoint is not active and verified");
  }
  return sendable;
}

/**
 * The picked deliveries each endpoint may still lease, counting the leases every process holds
 * (pending rows whose lease has not run out); SQLite's single writer makes claims take turns
 * (PostgreSQL's: claims-postgres.ts).
 */
function withinClusterCap(
  tx: Db,
  picked: string[],
  endpointOf: Map<string, string>,
  request: ClaimRequest,
): string[] {
  const endpoints = [...new Set(picked.map((id) => endpointOf.get(id) as string))].sort();
  const leased = sqliteLeasedCounts(tx, endpoints, request.now, request.holder ?? null);
  const alone = holdCap(request, false);
  const room = new Map(endpoints.map((e) => [e, alone]));
  for (const row of leased) room.set(row.endpointId, holdCap(request, row.others > 0) - row.n);
  return picked.filter((id) => {
    const endpointId = endpointOf.get(id) as string;
    const left = room.get(endpointId) ?? 0;
    if (left <= 0) return false;
    room.set(endpointId, left - 1);
    return true;
  });
}
