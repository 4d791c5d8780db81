// The events raised for a service account, newest first, for operators (svc events list) and
// the portal. Each entry carries the exact envelope that is signed and sent.
import { and, desc, eq, sql } from "drizzle-orm";
import type { DbOrTx } from "../db/open.ts";
import { type EventType, events } from "../db/schema.ts";
import { ApiError } from "../http/errors.ts";
import type { EventEnvelope } from "../webhooks/event-types.ts";
import { assertServiceAccount } from "./connections.ts";

export const defaultEventLimit = 50;
export const maxEventLimit = 1000;

export interface ListedEvent {
  id: string;
  type: EventType;
  created_at: string;
  envelope: EventEnvelope;
}

export function listAccountEvents(
  db: DbOrTx,
  serviceAccountId: string,
  options: { type?: EventType; limit?: number } = {},
): ListedEvent[] {
  const limit = options.limit ?? defaultEventLimit;
  if (!Number.isInteger(limit) || limit < 1 || limit > maxEventLimit)
    throw new ApiError(
      "invalid_request",
      `limit must be a whole number from 1 to ${maxEventLimit}.`,
    );
  assertServiceAccount(db, serviceAccountId);
  const rows = db
    .select()
    .from(events)
    .where(
      and(
        eq(events.serviceAccountId, serviceAccountId),
        options.type ? eq(events.type, options.type) : undefined,
      ),
    )
    // Events of one sync share created_at; rowid keeps the order they were written in.
    .orderBy(desc(events.createdAt), desc(sql`rowid`))
    .limit(limit)
    .all();
  return rows.map((row) => ({
    id: row.id,
    type: row.type,
    created_at: row.createdAt.toISOString(),
    envelope: JSON.parse(row.body) as EventEnvelope,
  }));
}
