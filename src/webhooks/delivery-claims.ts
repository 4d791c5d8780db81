// Claiming due deliveries with a lease (DESIGN.md "Delivery is at-least-once and durable").
// A claim moves next_attempt_at (and lease_expires_at) to the lease's end in one conditional
// UPDATE, so two dispatchers never claim the same row, and a dispatcher that dies mid-send
// leaves the row pending: it is due again, and re-sent, once the lease has run out.
//
// Hot path: these statements run hundreds of times a second, so they are plain SQL compiled
// once per connection (bun:sqlite caches `query()` statements) instead of being rebuilt by
// the query builder each time; id lists travel as one JSON parameter (json_each).
import type { Database } from "../db/open.ts";
import { cancelPendingDeliveries } from "./endpoint-state.ts";

export interface ClaimedDelivery {
  id: string;
  eventId: string;
  endpointId: string;
  serviceAccountId: string;
  /** Attempts made before this one. */
  attemptCount: number;
  body: string;
  url: string;
  secretSalt: string;
}

export interface ClaimRequest {
  now: Date;
  leaseUntil: Date;
  /** At most this many rows. */
  limit: number;
  /** How many more rows each endpoint may take now (its concurrency cap minus in-flight). */
  endpointRoom(endpointId: string): number;
  /** Endpoints with no room, skipped by the query so they cannot crowd out the others. */
  fullEndpoints: string[];
}

const candidatesSql = `
  SELECT id, endpoint_id AS endpointId FROM deliveries
  WHERE status = 'pending' AND next_attempt_at <= ?1
    AND endpoint_id NOT IN (SELECT value FROM json_each(?2))
  ORDER BY next_attempt_at
  LIMIT ?3`;

const claimSql = `
  UPDATE deliveries SET next_attempt_at = ?1, lease_expires_at = ?1
  WHERE id IN (SELECT value FROM json_each(?2)) AND status = 'pending' AND next_attempt_at <= ?3
  RETURNING id`;

const detailsSql = `
  SELECT d.id, d.event_id AS eventId, d.endpoint_id AS endpointId,
         d.attempt_count AS attemptCount, e.body, w.url, w.secret_salt AS secretSalt,
         w.service_account_id AS serviceAccountId, w.status AS endpointStatus,
         w.verified_at AS verifiedAt
  FROM deliveries d
  JOIN events e ON e.id = d.event_id
  JOIN webhook_endpoints w ON w.id = d.endpoint_id
  WHERE d.id IN (SELECT value FROM json_each(?1))`;

type DetailRow = ClaimedDelivery & { endpointStatus: string; verifiedAt: number | null };

/** Claims up to `limit` due deliveries, honouring each endpoint's room. */
export function claimDueDeliveries(
  { db, sqlite }: Pick<Database, "db" | "sqlite">,
  request: ClaimRequest,
): ClaimedDelivery[] {
  const now = request.now.getTime();
  const candidates = sqlite
    .query<{ id: string; endpointId: string }, [number, string, number]>(candidatesSql)
    .all(now, JSON.stringify(request.fullEndpoints), Math.max(request.limit * 4, 64));
  if (candidates.length === 0) return [];
  const taken = new Map<string, number>();
  const picked: string[] = [];
  for (const candidate of candidates) {
    if (picked.length >= request.limit) break;
    const already = taken.get(candidate.endpointId) ?? 0;
    if (already >= request.endpointRoom(candidate.endpointId)) continue;
    taken.set(candidate.endpointId, already + 1);
    picked.push(candidate.id);
  }
  if (picked.length === 0) return [];
  const claimed = sqlite
    .query<{ id: string }, [number, string, number]>(claimSql)
    .all(request.leaseUntil.getTime(), JSON.stringify(picked), now);
  if (claimed.length === 0) return [];
  const rows = sqlite
    .query<DetailRow, [string]>(detailsSql)
    .all(JSON.stringify(claimed.map((row) => row.id)));
  // Only active and verified endpoints receive account events (spec 3). A row for any other
  // endpoint (paused or disabled a moment ago) is cancelled, never sent later.
  const ineligible = new Set<string>();
  const sendable: ClaimedDelivery[] = [];
  for (const { endpointStatus, verifiedAt, ...delivery } of rows) {
    if (endpointStatus !== "active" || verifiedAt === null) ineligible.add(delivery.endpointId);
    else sendable.push(delivery);
  }
  for (const endpointId of ineligible) {
    cancelPendingDeliveries(db, endpointId, request.now, "endpoint is not active and verified");
  }
  return sendable;
}
