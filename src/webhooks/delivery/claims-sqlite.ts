// The claim's statements on SQLite, each of fixed text and prepared once per connection
// (Db.prepared): the candidate read (outside the transaction, on the reader), then, under the
// write lock, the cluster-wide cap's count, the UPDATE that takes the rows and returns them with
// their event's body, and the endpoints' state. The same rules as PostgreSQL's statement
// (webhooks/delivery/claims-postgres.ts); id lists go as one JSON parameter read by json_each.
import { preparedStatement } from "../../db/prepared.ts";
import type { Db } from "../../db/store.ts";
import type { ClaimedRow } from "./claimed-delivery.ts";

const candidatesSql = `SELECT id, endpoint_id AS endpointId FROM deliveries
  WHERE status = 'pending' AND next_attempt_at <= ?
    AND endpoint_id NOT IN (SELECT value FROM json_each(?))
  ORDER BY next_attempt_at LIMIT ?`;

/**
 * Leased rows per endpoint, and how many of them other processes hold (a null holder is never
 * the claiming one's): a lease moves next_attempt_at to its end, so the due index's range of
 * future attempts holds every leased row (and scheduled retries), never the endpoint's history.
 */
const leasedSql = `SELECT endpoint_id AS endpointId, count(*) AS n,
    sum(lease_holder IS NULL OR lease_holder IS NOT ?) AS others FROM deliveries
  WHERE endpoint_id IN (SELECT value FROM json_each(?))
    AND status = 'pending' AND next_attempt_at > ? AND lease_expires_at > ?
  GROUP BY endpoint_id`;

/**
 * The status is re-checked per row, not searched: written as an expression no index serves, so
 * the planner looks the rows up by id instead of scanning every due delivery (SQLite without
 * statistics picks deliveries_due_idx: ~30x slower with a backlog).
 */
const takeSql = `UPDATE deliveries
  SET next_attempt_at = ?, lease_expires_at = ?, claim_token = ?, lease_holder = ?
  WHERE id IN (SELECT value FROM json_each(?))
    AND coalesce(status, '') = 'pending' AND next_attempt_at <= ?
  RETURNING id, event_id AS eventId, endpoint_id AS endpointId, attempt_count AS attemptCount,
    (SELECT body FROM events WHERE events.id = deliveries.event_id) AS body`;

const endpointsSql = `SELECT id, url, secret_salt AS secretSalt,
    service_account_id AS serviceAccountId, status, verified_at IS NOT NULL AS verified
  FROM webhook_endpoints WHERE id IN (SELECT value FROM json_each(?))`;

/** Due deliveries in due order, leaving out endpoints without room (reader, no lock). */
export function sqliteCandidates(
  db: Db,
  now: Date,
  fullEndpoints: readonly string[],
  limit: number,
): { id: string; endpointId: string }[] {
  return preparedStatement(db, candidatesSql).all(
    now.getTime(),
    JSON.stringify(fullEndpoints),
    limit,
  ) as {
    id: string;
    endpointId: string;
  }[];
}

/**
 * Leases each of `endpoints` holds right now, across every process on the file, and how many of
 * them are not `holder`'s.
 */
export function sqliteLeasedCounts(
  db: Db,
  endpoints: readonly string[],
  now: Date,
  holder: string | null,
) {
  const at = now.getTime();
  return preparedStatement(db, leasedSql).all(holder, JSON.stringify(endpoints), at, at) as {
    endpointId: string;
    n: number;
    others: number;
  }[];
}

export interface SqliteTake {
  ids: readonly string[];
  now: Date;
  leaseUntil: Date;
  claimToken: string;
  holder: string | null;
}

/** Takes the rows still pending and due; returns them with their endpoint's state, by id. */
export function sqliteTake(tx: Db, take: SqliteTake): ClaimedRow[] {
  const until = take.leaseUntil.getTime();
  const taken = preparedStatement(tx, takeSql).all(
    until,
    until,
    take.claimToken,
    take.holder,
    JSON.stringify(take.ids),
    take.now.getTime(),
  ) as {
    id: string;
    eventId: string;
    endpointId: string;
    attemptCount: number;
    body: string;
  }[];
  if (taken.length === 0) return [];
  const endpointIds = [...new Set(taken.map((row) => row.endpointId))];
  const endpoints = new Map(
    (
      preparedStatement(tx, endpointsSql).all(JSON.stringify(endpointIds)) as {
        id: string;
        url: string;
        secretSalt: string;
        serviceAccountId: string;
        status: string;
        verified: number;
      }[]
    ).map((endpoint) => [endpoint.id, endpoint]),
  );
  const rows: ClaimedRow[] = [];
  for (const row of taken) {
    // The row's endpoint exists: the foreign key cascades its removal to the row.
    const endpoint = endpoints.get(row.endpointId);
    if (!endpoint) continue;
    rows.push({
      ...row,
      url: endpoint.url,
      secretSalt: endpoint.secretSalt,
      serviceAccountId: endpoint.serviceAccountId,
      endpointStatus: endpoint.status,
      verified: endpoint.verified === 1,
    });
  }
  // In creation order (ids are UUID v7), as the claim took them.
  return rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
