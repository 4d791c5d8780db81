// The events raised for a service account, newest first, for operators (svc events list) and
// the portal. Each entry carries the exact envelope that is signed and sent.
import { and, desc, eq } from "drizzle-orm";
import { ApiError } from "../core/errors.ts";
import type { Db } from "../db/store.ts";
import type { EventEnvelope, EventType } from "../webhooks/events/types.ts";
import { assertServiceAccount } from "./connections.ts";

export const defaultEventLimit = 50;
export const maxEventLimit = 1000;

export interface ListedEvent {
  id: string;
  type: EventType;
  created_at: string;
  envelope: EventEnvelope;
}

export async function listAccountEvents(
  db: Db,
  serviceAccountId: string,
  options: { type?: EventType; limit?: number } = {},
): Promise<ListedEvent[]> {
  const limit = options.limit ?? defaultEventLimit;
  if (!Number.isInteger(limit) || limit < 1 || limit > maxEventLimit)
    throw new ApiError(
      "invalid_request",
      `limit must be a whole number from 1 to ${maxEventLimit}.`,
    );
  await assertServiceAccount(db, serviceAccountId);
  const { events } = db.t;
  const rows = await db
    .select()
    .from(events)
    .where(
      and(
        eq(events.serviceAccountId, serviceAccountId),
        options.type ? eq(events.type, options.type) : undefined,
      ),
    )
    // Events of one sync share created_at; their ids are time-ordered (v7) in writing order.
    .orderBy(desc(events.createdAt), desc(events.id))
    .limit(limit);
  return rows.map((row) => ({
    id: row.id,
    type: row.type,
    created_at: row.createdAt.toISOString(),
    envelope: JSON.parse(row.body) as EventEnvelope,
  }));
}
