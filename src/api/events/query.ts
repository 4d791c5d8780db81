// The query string of GET /v1/events and /v1/events/stream, and the events list's
// cursor. `type` takes one event type or several separated by commas (a receiver handling two
// types asks once, not twice); `created_after` is an RFC 3339 instant with its offset. The cursor
// carries the filters it was issued for, so the next page needs only `cursor`, and a cursor sent
// with different filters is refused rather than answered with a page of another list.
import { z } from "@hono/zod-openapi";
import { type EventType, eventTypes } from "../../db/schema.ts";
import { decodeCursor, encodeCursor, foreignCursor } from "../shared/cursor.ts";
import type { Page } from "../shared/page.ts";
import { defaultPageLimit, pageQuery } from "../shared/params.ts";
import type { EventFilter, EventPosition, StoredEvent } from "./read.ts";

const typeMessage = `must be one or more of ${eventTypes.join(", ")}, separated by commas`;

/** Parses `a,b` into distinct known event types, sorted (so equal filters compare equal). */
export function parseEventTypes(text: string): EventType[] | undefined {
  const parts = text.split(",").map((part) => part.trim());
  if (parts.some((part) => !(eventTypes as readonly string[]).includes(part))) return undefined;
  return [...new Set(parts as EventType[])].sort();
}

const typeParam = z
  .string({ error: "must be given once" })
  .refine((text) => parseEventTypes(text) !== undefined, typeMessage)
  .optional()
  .openapi({
    param: { name: "type", in: "query" },
    description: `Only events of this type; several types separated by commas (e.g. \`account.balance.updated,connection.status.changed\`). One of: ${eventTypes.map((t) => `\`${t}\``).join(", ")}.`,
    example: "account.transactions.available",
  });

const createdAfterMessage =
  "must be an RFC 3339 date-time with a time zone, e.g. 2026-01-15T09:00:00Z";
const createdAfterParam = z.iso
  .datetime({ offset: true, error: createdAfterMessage })
  .optional()
  .openapi({
    param: { name: "created_after", in: "query" },
    description:
      "Only events created strictly after this instant (RFC 3339 with `Z` or an offset). A receiver catching up passes the `created_at` of the last event it handled.",
    example: "2026-01-15T09:00:00Z",
  });

export const eventsQuery = pageQuery
  .extend({ type: typeParam, created_after: createdAfterParam })
  .strict();

export const eventStreamQuery = z
  .object({
    type: typeParam,
    last_event_id: z
      .guid({ error: "must be an event id (a UUID)" })
      .optional()
      .openapi({
        param: { name: "last_event_id", in: "query" },
        description:
          "Resume after this event, for clients that cannot send the `Last-Event-ID` header on the first connection. The header wins when both are given. Unknown or another account's: 400 before anything is streamed.",
      }),
  })
  .strict();

export const eventPathParams = z.object({
  event_id: z.guid({ error: "must be a UUID" }).openapi({
    param: { name: "event_id", in: "path" },
    description: "The event's id (a UUID; the `id` of the envelope and `Svc-Webhook-Id`).",
    example: "01936f1e-8d9b-7c7e-9a51-0b6d2e7f4a10",
  }),
});

const eventsCursor = z
  .object({
    v: z.literal(1),
    k: z.literal("events"),
    at: z.number().int().nonnegative(),
    id: z.guid(),
    types: z.string(),
    after: z.number().int().nullable(),
  })
  .strict();

export type EventsQueryInput = z.infer<typeof eventsQuery>;

export interface EventsListRequest extends EventFilter {
  limit: number;
  before?: EventPosition;
}

function filterOf(input: EventsQueryInput): { types: EventType[]; createdAfterMs?: number } {
  const types = input.type === undefined ? [] : (parseEventTypes(input.type) ?? []);
  return input.created_after === undefined
    ? { types }
    : { types, createdAfterMs: Date.parse(input.created_after) };
}

export function resolveEventsQuery(input: EventsQueryInput): EventsListRequest {
  const limit = input.limit ?? defaultPageLimit;
  const given = filterOf(input);
  if (input.cursor === undefined) return { ...given, limit };
  const cursor = decodeCursor(input.cursor, eventsCursor);
  const types = cursor.types === "" ? [] : parseEventTypes(cursor.types);
  if (types === undefined) throw foreignCursor();
  if (
    (input.type !== undefined && given.types.join(",") !== cursor.types) ||
    (input.created_after !== undefined && given.createdAfterMs !== cursor.after)
  ) {
    throw foreignCursor();
  }
  return {
    types,
    ...(cursor.after === null ? {} : { createdAfterMs: cursor.after }),
    limit,
    before: { createdAtMs: cursor.at, id: cursor.id },
  };
}

export function nextEventsCursor(
  request: EventsListRequest,
  page: Page<StoredEvent>,
): string | null {
  const last = page.data.at(-1);
  if (!page.hasMore || !last) return null;
  return encodeCursor({
    v: 1,
    k: "events",
    at: last.createdAtMs,
    id: last.id,
    types: (request.types ?? []).join(","),
    after: request.createdAfterMs ?? null,
  });
}
