// The five event types and exactly the `data` fields each carries (spec 6). The schemas are
// strict, so a field that is not in the spec's table (an amount, a name, a balance) cannot
// reach an event body.
import { z } from "zod";
import { connectionStatuses, type EventType } from "../../db/schema.ts";

const uuid = z.uuid();
const isoUtc = z.iso.datetime({ offset: false, precision: 3 });

export const eventDataSchemas = {
  "account.transactions.available": z
    .object({ account_id: uuid, fetched_at: isoUtc, new_count: z.number().int().positive() })
    .strict(),
  "account.balance.updated": z.object({ account_id: uuid, fetched_at: isoUtc }).strict(),
  "connection.status.changed": z
    .object({ connection_id: uuid, status: z.enum(connectionStatuses), account_ids: z.array(uuid) })
    .strict(),
  "webhook.verify": z.object({ code: z.string().length(8), endpoint_id: uuid }).strict(),
  "webhook.test": z.object({ endpoint_id: uuid }).strict(),
} satisfies Record<EventType, z.ZodType>;

export type EventData<T extends EventType> = z.infer<(typeof eventDataSchemas)[T]>;

/** Events about bank data, delivered to active and verified endpoints with retries. */
export const accountEventTypes = [
  "account.transactions.available",
  "account.balance.updated",
  "connection.status.changed",
] as const satisfies readonly EventType[];
export type AccountEventType = (typeof accountEventTypes)[number];

export interface EventEnvelope<T extends EventType = EventType> {
  id: string;
  type: T;
  created_at: string;
  api_version: "v1";
  data: EventData<T>;
}
