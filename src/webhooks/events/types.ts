// The event catalog: every event type (spec 6) once, with exactly the `data` fields it carries,
// whether it is an account event, what the reference and the portal say about it and the
// example the reference shows. The OpenAPI `webhooks` section, the event-type filters and the
// portal's filter derive from it; the stored values (db/schema/values.ts, below the features)
// are held to its keys by the compiler. The data schemas are strict, so a field that is not in
// the spec's table (an amount, a name, a balance) cannot reach an event body. Imports nothing of
// the project but value sets, so the portal can import it.
import type { z } from "zod";
import { connectionStatuses, type EventType, eventTypes } from "../../db/schema/values.ts";
import { verificationCodeLength } from "./verification-code.ts";

/** The example events' ids and creation time (the reference's webhook examples). */
export const exampleEventIds = {
  account: "3f1c2a4e-8d9b-4c7e-9a51-0b6d2e7f4a10",
  connection: "8e2d6b1a-5c4f-4a3e-b9d7-2f1e0c9a8b76",
  endpoint: "c4a7e1d2-9b3f-4e8a-a6c5-1d2e3f4a5b6c",
} as const;
export const exampleEventCreatedAt = new Date("2026-01-15T09:00:00.000Z");

/** zod, handed to each entry's `data` by events/data.ts: the catalog itself imports only its
 * types, so the portal, which imports the catalog, bundles no zod. */
type Zod = typeof z;

interface EventTypeEntry<Data extends z.ZodObject, Account extends boolean> {
  /** Account events are fanned out to active, verified endpoints (and can be filtered); the
   * others are one-off sends to one endpoint. */
  account: Account;
  /** The `data` schema (strict: only the spec's fields). */
  data: (z: Zod) => Data;
  /** What the event means to the owner (the portal's event-type filter). */
  portalLabel: string;
  /** The reference (OpenAPI `webhooks`): component schema name, summary, when it is sent. */
  schemaName: string;
  summary: string;
  description: string;
  example: { id: string; data: z.infer<Data> };
}

/** Checks each entry's example against its own data schema while keeping the literal's type. */
function entry<Data extends z.ZodObject, Account extends boolean>(
  e: EventTypeEntry<Data, Account>,
): EventTypeEntry<Data, Account> {
  return e;
}

export const eventCatalog = {
  "account.transactions.available": entry({
    account: true,
    data: (z) =>
      z
        .object({
          account_id: z.uuid(),
          fetched_at: z.iso.datetime({ offset: false, precision: 3 }),
          new_count: z.number().int().positive(),
        })
        .strict(),
    portalLabel: "new transactions were fetched",
    schemaName: "AccountTransactionsAvailableEvent",
    summary: "New transactions arrived for an account",
    description:
      "A sync brought in new transactions for an account. Fetch the account's transactions (`GET /accounts/{account_id}/transactions`) with a small date window overlapping your last read, and de-duplicate on `transaction_id`.",
    example: {
      id: "0194f1a2-7c3d-7e4f-8a5b-6c7d8e9f0a1b",
      data: {
        account_id: exampleEventIds.account,
        fetched_at: exampleEventCreatedAt.toISOString(),
        new_count: 3,
      },
    },
  }),
  "account.balance.updated": entry({
    account: true,
    data: (z) =>
      z
        .object({
          account_id: z.uuid(),
          fetched_at: z.iso.datetime({ offset: false, precision: 3 }),
        })
        .strict(),
    portalLabel: "a balance was refreshed",
    schemaName: "AccountBalanceUpdatedEvent",
    summary: "An account's balance changed",
    description:
      "An account's balance changed at the bank. Read it with `GET /accounts/{account_id}/balance`; its `fetched_at` is the same string as this event's `data.fetched_at`.",
    example: {
      id: "0194f1a2-7c3d-7e4f-8a5b-6c7d8e9f0a1c",
      data: {
        account_id: exampleEventIds.account,
        fetched_at: exampleEventCreatedAt.toISOString(),
      },
    },
  }),
  "connection.status.changed": entry({
    account: true,
    data: (z) =>
      z
        .object({
          connection_id: z.uuid(),
          status: z.enum(connectionStatuses),
          account_ids: z.array(z.uuid()),
        })
        .strict(),
    portalLabel: "a bank connection changed state",
    schemaName: "ConnectionStatusChangedEvent",
    summary: "A connection moved to a new status",
    description: `A connection moved to a new status (one of ${connectionStatuses.map((s) => `\`${s}\``).join(", ")}). \`account_ids\` lists every account the connection carries; read the connection with \`GET /connections/{connection_id}\`.`,
    example: {
      id: "0194f1a2-7c3d-7e4f-8a5b-6c7d8e9f0a1d",
      data: {
        connection_id: exampleEventIds.connection,
        status: "linked",
        account_ids: [exampleEventIds.account],
      },
    },
  }),
  "webhook.verify": entry({
    account: false,
    data: (z) =>
      z.object({ code: z.string().length(verificationCodeLength), endpoint_id: z.uuid() }).strict(),
    portalLabel: "a verification code for the endpoint",
    schemaName: "WebhookVerifyEvent",
    summary: "Verification code for a new endpoint",
    description: `Sent when the endpoint's owner asks for a verification code in the portal (or with \`svc endpoints send-code\`). \`data.code\` (${verificationCodeLength} characters) is the only value a receiver must read: enter it in the portal (or with \`svc endpoints verify\`) within 1 hour and 5 attempts to verify the endpoint. Account events flow only to verified endpoints.`,
    example: {
      id: "0194f1a2-7c3d-7e4f-8a5b-6c7d8e9f0a1e",
      data: { code: "K7QX2M9P", endpoint_id: exampleEventIds.endpoint },
    },
  }),
  "webhook.test": entry({
    account: false,
    data: (z) => z.object({ endpoint_id: z.uuid() }).strict(),
    portalLabel: "a test event, sent when Test is pressed",
    schemaName: "WebhookTestEvent",
    summary: "Test event",
    description:
      "Sent when Test is pressed in the portal (or `svc endpoints test`), also to unverified endpoints; never sent on its own. Answer 2xx; there is nothing to fetch afterwards.",
    example: {
      id: "0194f1a2-7c3d-7e4f-8a5b-6c7d8e9f0a1f",
      data: { endpoint_id: exampleEventIds.endpoint },
    },
  }),
} satisfies Record<EventType, unknown>;

type Catalog = typeof eventCatalog;

export { type EventType, eventTypes };

/** The data schema of each type (built by events/data.ts). */
export type EventDataSchema<T extends EventType> = ReturnType<Catalog[T]["data"]>;
export type EventData<T extends EventType> = z.infer<EventDataSchema<T>>;

/** Events about bank data, delivered to active and verified endpoints with retries. */
export type AccountEventType = {
  [T in EventType]: Catalog[T]["account"] extends true ? T : never;
}[EventType];
export const accountEventTypes = eventTypes.filter(
  (type) => eventCatalog[type].account,
) as AccountEventType[];

export interface EventEnvelope<T extends EventType = EventType> {
  id: string;
  type: T;
  created_at: string;
  api_version: "v1";
  data: EventData<T>;
}
