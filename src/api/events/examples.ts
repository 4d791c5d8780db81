// The examples of the events' operations (shared/examples.ts), declared on their routes. The
// events shown are the webhooks section's example events, as /v1/events serves them.
import type { z } from "@hono/zod-openapi";
import {
  badCursorExample,
  badLimitExamples,
  type DeclaredExamples,
  type ExampleContext,
  errorExample,
  refusal,
  thrown,
} from "../shared/examples.ts";
import { eventPathParams, eventStreamQuery, eventsQuery } from "./query.ts";
import { eventNotFound } from "./read.ts";
import type { eventListSchema } from "./schema.ts";
import { parseLastEventId } from "./stream.ts";

type EventExample = z.infer<typeof eventListSchema>["data"][number];

/** The event the single-event examples show (also the `event_id` parameter's example). */
export function exampleEvent(context: ExampleContext): EventExample {
  return context.exampleEvent("account.transactions.available") as EventExample;
}

export const listEventsExamples: DeclaredExamples = (context) => ({
  ok: {
    summary: "The last page of events",
    value: {
      data: [
        exampleEvent(context),
        context.exampleEvent("account.balance.updated") as EventExample,
      ],
      next_cursor: null,
    } satisfies z.infer<typeof eventListSchema>,
  },
  errors: {
    "400": {
      ...badLimitExamples(),
      bad_type: errorExample(
        "An event type that does not exist",
        refusal(eventsQuery, { type: "account.created" }),
      ),
      bad_created_after: errorExample(
        "`created_after` without a time zone",
        refusal(eventsQuery, { created_after: "2026-01-15T09:00:00" }),
      ),
      bad_cursor: badCursorExample("A cursor that was not a next_cursor"),
    },
  },
});

export const getEventExamples: DeclaredExamples = (context) => ({
  ok: { summary: "An event envelope", value: exampleEvent(context) },
  errors: {
    "400": {
      bad_id: errorExample(
        "An id that is not a UUID",
        refusal(eventPathParams, { event_id: "evt_123" }, "param"),
      ),
    },
    "404": {
      not_found: errorExample(
        "No such event in the key's service account (or past retention)",
        eventNotFound(String(exampleEvent(context).id)),
      ),
    },
  },
});

export const streamEventsExamples: DeclaredExamples = () => ({
  errors: {
    "400": {
      bad_type: errorExample(
        "An event type that does not exist",
        refusal(eventStreamQuery, { type: "account.created" }),
      ),
      bad_last_event_id: errorExample(
        "A Last-Event-ID that is not an event id",
        thrown(() => parseLastEventId("42")),
      ),
    },
  },
});
