// GET /v1/events, /v1/events/stream and /v1/events/{event_id}.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { ApiEnv } from "../middleware/auth.ts";
import { readRoute } from "../middleware/read-route.ts";
import { operationExamples } from "../shared/examples.ts";
import { noQuery } from "../shared/params.ts";
import {
  authErrorResponses,
  conditionalReadHeaders,
  invalidRequestResponse,
  itemResponses,
  listResponses,
} from "../shared/responses.ts";
import { getEventExamples, listEventsExamples, streamEventsExamples } from "./examples.ts";
import {
  eventPathParams,
  eventStreamQuery,
  eventsQuery,
  nextEventsCursor,
  parseEventTypes,
  resolveEventsQuery,
} from "./query.ts";
import type { EventReads, StoredEvent } from "./read.ts";
import { eventListSchema, eventSchema } from "./schema.ts";
import { type EventStreams, parseLastEventId } from "./stream.ts";

const listRoute = createRoute({
  method: "get",
  path: "/events",
  operationId: "listEvents",
  [operationExamples]: listEventsExamples,
  tags: ["Events"],
  summary: "List events",
  description:
    "The account's events, newest first, each the exact envelope that was signed and sent (a `webhook.verify` code masked). Events are kept for the retention period. A receiver that was paused or down catches up here: events raised while an endpoint is paused are never delivered later.",
  request: { headers: conditionalReadHeaders, query: eventsQuery },
  responses: listResponses(eventListSchema, "A page of events, newest first."),
});

const streamRoute = createRoute({
  method: "get",
  path: "/events/stream",
  operationId: "streamEvents",
  [operationExamples]: streamEventsExamples,
  tags: ["Events"],
  summary: "Stream new events (Server-Sent Events)",
  description:
    'A `text/event-stream` of the account\'s events as they are written: `id:` the event id, `event:` its type, `data:` the envelope (one line). Without `Last-Event-ID` the stream starts with the next new event; with it, every event after that one is sent first, in order, once. The first message is `id:` of the stream\'s starting position without an event (the newest event, or the nil UUID `00000000-0000-0000-0000-000000000000` when the account has none yet; as `Last-Event-ID` it means before the first event), so a client that reconnects before any event arrived still resumes from its first connection. Comment lines (`: heartbeat`) come every 5 s while idle. The key, its account and entitlement are checked again at every wake-up and heartbeat: once the key is revoked or the account refused, a last `event: stream.closed` carries the error envelope (`data: {"error":{"code":"invalid_api_key",...}}`) and the stream ends; do not reconnect with the same key. Opening counts as one request of the account\'s rate limit; at most 5 streams per account may be open at once, on every server of the service together (429 `rate_limited` beyond). The stream ends when the server stops: reconnect with `Last-Event-ID`.',
  request: {
    query: eventStreamQuery,
    headers: z.object({
      "last-event-id": z
        .string()
        .optional()
        .openapi({
          param: { name: "last-event-id", in: "header" },
          description:
            "Resume after this event (the `id:` of the last event received). Unknown or another account's: 400 before anything is streamed.",
        }),
    }),
  },
  responses: {
    200: {
      description: "The event stream.",
      content: {
        "text/event-stream": {
          schema: z.string().openapi({
            example:
              'id: 01936f1e-8d9b-7c7e-9a51-0b6d2e7f4a10\nevent: account.balance.updated\ndata: {"api_version":"v1","created_at":"2026-01-15T09:00:00.000Z","data":{"account_id":"3f1c2a4e-8d9b-4c7e-9a51-0b6d2e7f4a10","fetched_at":"2026-01-15T09:00:00.000Z"},"id":"01936f1e-8d9b-7c7e-9a51-0b6d2e7f4a10","type":"account.balance.updated"}\n\n',
          }),
        },
      },
    },
    ...invalidRequestResponse,
    ...authErrorResponses,
  },
});

const getRoute = createRoute({
  method: "get",
  path: "/events/{event_id}",
  operationId: "getEvent",
  [operationExamples]: getEventExamples,
  tags: ["Events"],
  summary: "Get an event",
  description:
    "One event of the account, the exact envelope that was signed and sent (a `webhook.verify` code masked). A receiver that got a webhook reads it here to check it. Events are kept for the retention period; an id of another account is 404, like an unknown one.",
  request: { headers: conditionalReadHeaders, query: noQuery, params: eventPathParams },
  responses: itemResponses(eventSchema, "The event envelope."),
});

/**
 * The events' stored canonical bodies, written as they are: parsed and serialised again they give
 * the same bytes (canonical-json.ts writes what JSON.stringify writes), so neither is done.
 */
const joinedBodies = (events: readonly StoredEvent[]) =>
  events.map((event) => event.body).join(",");

/** The events' reads (not the stream), answered by the router and by the read lane (middleware/read-route.ts). */
export function eventReadRoutes(reads: EventReads) {
  return {
    list: readRoute(listRoute, async ({ principal, query }) => {
      const request = resolveEventsQuery(query);
      const page = await reads.listEvents(principal.serviceAccountId, request);
      const cursor = nextEventsCursor(request, page);
      return {
        body: `{"data":[${joinedBodies(page.data)}],"next_cursor":${JSON.stringify(cursor)}}`,
      };
    }),
    get: readRoute(getRoute, async ({ principal, param }) => ({
      body: (await reads.getEvent(principal.serviceAccountId, param.event_id)).body,
    })),
  };
}

/** The event stream (before /events/{event_id}, which would otherwise take "stream" for an id). */
export function registerEventStreamRoute(app: OpenAPIHono<ApiEnv>, streams: EventStreams): void {
  app.openapi(streamRoute, async (c) => {
    const query = c.req.valid("query");
    const lastEventId =
      parseLastEventId(c.req.header("last-event-id")) ?? parseLastEventId(query.last_event_id);
    return streams.open(c, {
      serviceAccountId: c.get("principal").serviceAccountId,
      types: query.type === undefined ? [] : (parseEventTypes(query.type) ?? []),
      lastEventId,
      authorization: c.req.header("authorization"),
    }) as never;
  });
}
