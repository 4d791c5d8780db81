// Writing events on SQLite with statements of fixed text, prepared once per connection
// (Db.prepared): drizzle's building of the endpoints' read and the two inserts cost more than
// running them, and all of it is held under the write lock every process on the file shares
// (BENCHMARKS.md, "Events under the write lock…", 2026-12-07). The rules are write.ts's; on
// PostgreSQL the same statements go through drizzle there.

import { preparedStatement } from "../../db/prepared.ts";
import type { NewRow } from "../../db/schema.ts";
import type { Db } from "../../db/store.ts";

/** The endpoints an event of these accounts may go to (write.ts filters by event type). */
const endpointsSql = `SELECT id, service_account_id AS serviceAccountId, event_types AS eventTypes
  FROM webhook_endpoints
  WHERE service_account_id IN (SELECT value FROM json_each(?))
    AND status = 'active' AND verified_at IS NOT NULL
  ORDER BY id`;

const eventSql = `INSERT INTO events (id, service_account_id, type, body, created_at)
  VALUES (?, ?, ?, ?, ?)`;

/** The columns left out take their defaults from the table (the same as the schema's). */
const deliverySql = `INSERT INTO deliveries (id, event_id, endpoint_id, kind, status,
    attempt_count, next_attempt_at, created_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?)`;

export interface EligibleEndpoint {
  id: string;
  serviceAccountId: string;
  eventTypes: string | null;
}

export function sqliteEligibleEndpoints(tx: Db, accountIds: readonly string[]): EligibleEndpoint[] {
  return preparedStatement(tx, endpointsSql).all(JSON.stringify(accountIds)) as EligibleEndpoint[];
}

/** A delivery as write.ts queues it: every column it sets given, so none has a default here. */
export type QueuedDelivery = Required<
  Pick<
    NewRow<"deliveries">,
    "id" | "eventId" | "endpointId" | "kind" | "status" | "attemptCount" | "createdAt"
  >
> & { nextAttemptAt: Date };

/** The rows as write.ts built them; dates are stored as epoch milliseconds, like drizzle's. */
export function sqliteInsertEvents(
  tx: Db,
  events: readonly NewRow<"events">[],
  deliveries: readonly QueuedDelivery[],
): void {
  const insertEvent = preparedStatement(tx, eventSql);
  for (const row of events) {
    insertEvent.run(row.id, row.serviceAccountId, row.type, row.body, row.createdAt.getTime());
  }
  const insertDelivery = preparedStatement(tx, deliverySql);
  for (const row of deliveries) {
    insertDelivery.run(
      row.id,
      row.eventId,
      row.endpointId,
      row.kind,
      row.status,
      row.attemptCount,
      row.nextAttemptAt.getTime(),
      row.createdAt.getTime(),
    );
  }
}
