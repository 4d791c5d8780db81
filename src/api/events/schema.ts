// The event envelope as /v1/events serves it: exactly the body that is signed and
// sent (spec 2 "Event envelope"), a webhook.verify code masked as stored.
import { z } from "@hono/zod-openapi";
import { eventTypes } from "../../db/schema.ts";
import { idSchema, nextCursorSchema, timestampSchema } from "../shared/schema.ts";

export const eventSchema = z
  .object({
    id: idSchema.openapi({ description: "The event id; also sent as `Svc-Webhook-Id`." }),
    type: z.enum(eventTypes).openapi({ description: "The event type." }),
    created_at: timestampSchema,
    api_version: z.literal("v1"),
    data: z.record(z.string(), z.unknown()).openapi({
      description:
        "The type's fields (spec 6). In a `webhook.verify` event the `code` is masked (`********`): only the receiver ever sees it.",
    }),
  })
  .strict()
  .openapi("Event", {
    description:
      "An event envelope, byte for byte the canonical JSON that is signed and delivered (keys sorted, no spaces).",
  });

export const eventListSchema = z
  .object({ data: z.array(eventSchema), next_cursor: nextCursorSchema })
  .strict()
  .openapi("EventList");
