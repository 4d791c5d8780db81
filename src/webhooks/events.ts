// Writing events (transactional outbox, DESIGN.md): the event row with its canonical body and
// one delivery row per eligible endpoint are written with the caller's transaction, so data
// and the events describing it commit together or not at all.
import { Database as SqliteDatabase } from "bun:sqlite";
import type { Clock } from "../clock.ts";
import type { DbOrTx } from "../db/open.ts";
import type { EventType } from "../db/schema.ts";
import { newId } from "../ids.ts";
import { canonicalJson } from "./canonical-json.ts";
import {
  type AccountEventType,
  type EventData,
  type EventEnvelope,
  eventDataSchemas,
} from "./event-types.ts";

export interface BuiltEvent<T extends EventType> {
  envelope: EventEnvelope<T>;
  /** The exact bytes that are stored, signed and sent. */
  body: string;
}

/** Validates `data` against the spec's table for `type` and serialises the envelope canonically. */
export function buildEvent<T extends EventType>(
  type: T,
  data: EventData<T>,
  createdAt: Date,
  id: string = newId(),
): BuiltEvent<T> {
  const parsed = eventDataSchemas[type].safeParse(data);
  if (!parsed.success) {
    throw new TypeError(
      `event ${type}: data does not match the spec: ${parsed.error.issues[0]?.message}`,
    );
  }
  const envelope = {
    id,
    type,
    created_at: createdAt.toISOString(),
    api_version: "v1",
    data: parsed.data,
  } as EventEnvelope<T>;
  return { envelope, body: canonicalJson(envelope) };
}

export interface RecordedEvent {
  eventId: string;
  body: string;
  deliveryIds: string[];
}

/**
 * Records an account event inside the caller's transaction and queues one delivery per
 * endpoint of the account that is active and verified (spec 3). Endpoints that are paused,
 * disabled or unverified get nothing, now or later (spec 6). After the transaction commits,
 * call `outbox.notify()` so the dispatcher sends at once.
 */
export function recordAccountEvent<T extends AccountEventType>(
  tx: DbOrTx,
  clock: Clock,
  input: { serviceAccountId: string; type: T; data: EventData<T> },
): RecordedEvent {
  const now = clock.now();
  const { envelope, body } = buildEvent(input.type, input.data, now);
  const row = { eventId: envelope.id, serviceAccountId: input.serviceAccountId, body, now };
  const deliveryIds = writeWithStatements(sqliteClientOf(tx), row, input.type);
  return { eventId: envelope.id, body, deliveryIds };
}

interface EventRow {
  eventId: string;
  serviceAccountId: string;
  body: string;
  now: Date;
}

/**
 * The bun:sqlite connection under a drizzle database or transaction. Event writes are the
 * hottest insert path (one per changed account), so they use statements compiled once per
 * connection instead of rebuilding and re-preparing the query each time (about half the cost
 * per event, see BENCHMARKS.md). Statements run on the same connection, so they belong to the
 * caller's transaction.
 */
export function sqliteClientOf(tx: DbOrTx): SqliteDatabase {
  const client = (tx as unknown as { session?: { client?: unknown } }).session?.client;
  if (!(client instanceof SqliteDatabase)) {
    throw new TypeError("recordAccountEvent needs a drizzle bun:sqlite database or transaction");
  }
  return client;
}

const insertEventSql =
  "INSERT INTO events (id, service_account_id, type, body, created_at) VALUES (?1, ?2, ?3, ?4, ?5)";
const eligibleEndpointsSql = `
  SELECT id FROM webhook_endpoints
  WHERE service_account_id = ?1 AND status = 'active' AND verified_at IS NOT NULL`;
const insertDeliverySql = `
  INSERT INTO deliveries (id, event_id, endpoint_id, kind, status, attempt_count, next_attempt_at, created_at)
  VALUES (?1, ?2, ?3, 'event', 'pending', 0, ?4, ?4)`;

function writeWithStatements(client: SqliteDatabase, row: EventRow, type: EventType): string[] {
  const at = row.now.getTime();
  client.query(insertEventSql).run(row.eventId, row.serviceAccountId, type, row.body, at);
  const eligible = client
    .query<{ id: string }, [string]>(eligibleEndpointsSql)
    .all(row.serviceAccountId);
  const insert = client.query(insertDeliverySql);
  return eligible.map((endpoint) => {
    const id = newId();
    insert.run(id, row.eventId, endpoint.id, at);
    return id;
  });
}
