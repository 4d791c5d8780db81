// The delivery log's query parameters, shared by the per-endpoint and the
// account-wide log: filters and a keyset cursor, each refused with a 400 that names it.
import { z } from "zod";
import { isUuid } from "../../core/ids.ts";
import { deliveryStatuses } from "../../db/schema.ts";
import {
  type DeliveryFilter,
  decodeDeliveryCursor,
  deliveryCursorPattern,
} from "../../webhooks/delivery-log/log.ts";
import { eventTypes } from "../../webhooks/events/types.ts";

const id = (what: string) => z.string().refine(isUuid, { message: `must be ${what} id (a UUID)` });

export const deliveryLogQuery = z
  .object({
    outcome: z.enum(deliveryStatuses).optional(),
    type: z.enum(eventTypes).optional(),
    event: id("an event").optional(),
    limit: z.coerce.number().int().min(1).max(200).optional(),
    before: z
      .string()
      .regex(deliveryCursorPattern, "must be the nextCursor of a previous page")
      .optional(),
  })
  .strict();

export const accountDeliveryLogQuery = deliveryLogQuery.extend({
  endpoint: id("an endpoint").optional(),
});

const defaultDeliveryPageSize = 50;

/** The feature's filter from a parsed query (limit defaulted). */
export function deliveryFilterOf(
  query: z.infer<typeof deliveryLogQuery>,
): DeliveryFilter & { limit: number } {
  const before = query.before ? decodeDeliveryCursor(query.before) : undefined;
  return {
    ...(query.outcome ? { status: query.outcome } : {}),
    ...(query.type ? { eventType: query.type } : {}),
    ...(query.event ? { eventId: query.event } : {}),
    ...(before ? { before } : {}),
    limit: query.limit ?? defaultDeliveryPageSize,
  };
}
