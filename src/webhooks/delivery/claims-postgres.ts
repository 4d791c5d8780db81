// The claim's transaction on PostgreSQL in two statements (claimDueDeliveries reads the
// candidates before it): the endpoints' advisory locks, then one statement that locks the picked
// rows still pending and due (FOR UPDATE SKIP LOCKED: rows another instance is claiming are
// passed by), keeps those within each endpoint's cluster-wide cap, moves them to the lease and
// returns them joined with their event and endpoint. The same rules as the statement-by-statement
// form SQLite runs (claims.ts). Both statements leave with BEGIN and COMMIT in one write
// (pipelined, db/postgres-store.ts `commitWithWork`): the transaction is one round trip.
//
// The cap's count must see every claim committed before this one took the endpoint's lock, so
// the lock is a statement of its own: a read-committed statement reads the snapshot taken when it
// started, and the server starts the claim statement only after the lock statement has finished.
import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../../db/store.ts";
import type { ClaimedRow } from "./claimed-delivery.ts";

export interface PostgresClaim {
  /** The picked deliveries, in the order they should be taken. */
  ids: string[];
  /** Their endpoints (sorted: locks are always taken in one order, so claims never deadlock). */
  endpoints: string[];
  now: Date;
  leaseUntil: Date;
  claimToken: string;
  holder: string | null;
  /** The cap while other processes hold leases on the endpoint (claims.ts holdCap). */
  endpointCap?: number;
  /** The cap for an endpoint no other process holds leases on. */
  endpointHoldCap?: number;
}

interface RawRow {
  id: string;
  event_id: string;
  endpoint_id: string;
  service_account_id: string;
  attempt_count: number;
  body: string;
  url: string;
  secret_salt: string;
  endpoint_status: string;
  verified: boolean;
}

/**
 * Due deliveries in due order, leaving out endpoints without room (outside the claim's
 * transaction). The full endpoints go as one array parameter, so the text never changes and the
 * statement stays prepared on each connection (a list of its own length per call was parsed anew).
 *
 * The read walks the due index in order and stops at the limit (indexScansOnly, below).
 */
export function postgresCandidates(
  db: Db,
  now: Date,
  fullEndpoints: readonly string[],
  limit: number,
): Promise<{ id: string; endpointId: string }[]> {
  if (!db.inTransaction) {
    return db.write((tx) => postgresCandidates(tx, now, fullEndpoints, limit), {
      isolation: "read committed",
      purpose: "delivery_candidates",
      commitWithWork: true,
    });
  }
  indexScansOnly(db);
  const rows = db.rows<{ id: string; endpoint_id: string }>(sql`
    SELECT id, endpoint_id FROM deliveries
    WHERE status = 'pending' AND next_attempt_at <= ${now.getTime()}
      AND endpoint_id <> ALL(${sql.param(fullEndpoints)}::text[])
    ORDER BY next_attempt_at LIMIT ${limit}`);
  return rows.then((found) => found.map((row) => ({ id: row.id, endpointId: row.endpoint_id })));
}

/**
 * The claim's reads walk the indexes they were written for: the due index in order (the
 * candidates, stopping at the limit) and its range of future attempts (the leases held). Left to
 * its statistics the planner chose otherwise whenever they were older than a burst of new
 * deliveries, which is the usual case (a large sync writes thousands of pending rows into a table
 * of finished ones, far fewer than autovacuum's analyze waits for): estimating a few pending
 * rows, it read every pending row through a bitmap and sorted them all on every claim, and
 * counted the leases by ANDing the due index's pending rows with the endpoint's history (with a
 * 20,000-row backlog 14 ms and 4 ms a claim, most of the server's CPU per delivery:
 * BENCHMARKS.md, 2026-12-01). Bitmap scans are turned off for the rest of the transaction
 * (`SET LOCAL`; every statement of a claim's or a turn's transaction looks rows up through an
 * index), which leaves those plans as the cheap ones whatever the statistics say. Not awaited: it
 * leaves with the statements behind it; should it fail, the transaction is aborted and they fail
 * with it.
 */
function indexScansOnly(tx: Db): void {
  tx.rows(sql`SET LOCAL enable_bitmapscan = off`).catch(() => undefined);
}

export async function claimOnPostgres(tx: Db, claim: PostgresClaim): Promise<ClaimedRow[]> {
  const now = claim.now.getTime();
  indexScansOnly(tx);
  const lease = claim.leaseUntil.getTime();
  // Every endpoint's lock in one statement, taken in the sorted order of the array: a function
  // scan of unnest yields its elements in order and the select list is evaluated row by row. Not
  // awaited before the claim statement is sent: the two go out together (pipelined) and the
  // server starts the claim, and takes its snapshot, only once the locks are held; if the locks
  // fail, the claim fails too (the transaction is aborted).
  const locked =
    claim.endpointCap === undefined
      ? undefined
      : tx.rows(
          sql`SELECT pg_advisory_xact_lock(hashtext('svc_endpoint:' || k)) FROM unnest(${sql.param(claim.endpoints)}::text[]) AS k`,
        );
  // Without a cap every free row is allowed.
  const allowed: SQL =
    claim.endpointCap === undefined
      ? sql`SELECT id FROM free`
      : sql`SELECT f.id FROM (
            SELECT id, endpoint_id, row_number() OVER (PARTITION BY endpoint_id ORDER BY ord) AS k
            FROM free) f
          LEFT JOIN (
            -- Leases every process holds, and other processes' (claims.ts holdCap): a lease
            -- moves next_attempt_at to its end, so the due index's range of future attempts
            -- holds them, never the endpoint's history.
            SELECT endpoint_id, count(*) AS n,
              count(*) FILTER (WHERE lease_holder IS NULL OR lease_holder <> ${claim.holder ?? ""})
                AS others
            FROM deliveries
            WHERE endpoint_id = ANY(${sql.param(claim.endpoints)}::text[]) AND status = 'pending'
              AND next_attempt_at > ${now} AND lease_expires_at > ${now}
            GROUP BY endpoint_id) leased ON leased.endpoint_id = f.endpoint_id
          WHERE f.k <= CASE WHEN coalesce(leased.others, 0) > 0 THEN ${claim.endpointCap}
              ELSE ${claim.endpointHoldCap ?? claim.endpointCap} END - coalesce(leased.n, 0)`;
  const claimed = tx.rows<RawRow>(sql`
    WITH free AS (
      SELECT row.id, row.endpoint_id, picked.ord
      FROM unnest(${sql.param(claim.ids)}::text[]) WITH ORDINALITY AS picked(id, ord)
      -- Each picked row looked up by its key and locked, one at a time: a subquery that locks
      -- rows is never merged into the join, so stale statistics cannot turn this into a scan
      -- of the whole table joined by hash (as the plain join was, 7 ms with 20,000 rows).
      CROSS JOIN LATERAL (
        SELECT deliveries.id, deliveries.endpoint_id FROM deliveries
        WHERE deliveries.id = picked.id AND deliveries.status = 'pending'
          AND deliveries.next_attempt_at <= ${now}
        FOR UPDATE SKIP LOCKED
      ) row
    ),
    allowed AS (${allowed}),
    claimed AS (
      UPDATE deliveries SET next_attempt_at = ${lease}, lease_expires_at = ${lease},
        claim_token = ${claim.claimToken}, lease_holder = ${claim.holder}
      FROM allowed WHERE deliveries.id = allowed.id
      RETURNING deliveries.id, deliveries.event_id, deliveries.endpoint_id, deliveries.attempt_count
    )
    SELECT claimed.id, claimed.event_id, claimed.endpoint_id, claimed.attempt_count, events.body,
      webhook_endpoints.url, webhook_endpoints.secret_salt, webhook_endpoints.service_account_id,
      webhook_endpoints.status AS endpoint_status,
      webhook_endpoints.verified_at IS NOT NULL AS verified
    FROM claimed
    JOIN events ON events.id = claimed.event_id
    JOIN webhook_endpoints ON webhook_endpoints.id = claimed.endpoint_id
    ORDER BY claimed.id`);
  const [rows] = await Promise.all([claimed, locked]);
  return rows.map((row) => ({
    id: row.id,
    eventId: row.event_id,
    endpointId: row.endpoint_id,
    serviceAccountId: row.service_account_id,
    attemptCount: Number(row.attempt_count),
    body: row.body,
    url: row.url,
    secretSalt: row.secret_salt,
    endpointStatus: row.endpoint_status,
    verified: row.verified,
  }));
}
