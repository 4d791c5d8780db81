// Reading endpoints: the public view (never the secret, its hash or salt) and the scoped
// lookup every endpoint action starts with.
import { and, asc, eq } from "drizzle-orm";
import { ApiError } from "../../core/errors.ts";
import { isUuid } from "../../core/ids.ts";
import type { EndpointStatus, Row } from "../../db/schema.ts";
import { type Db, first } from "../../db/store.ts";
import { readEventTypeFilter } from "../events/event-filter.ts";
import type { AccountEventType } from "../events/types.ts";

export type EndpointRow = Row<"webhookEndpoints">;

/**
 * Which endpoint an action is about. The portal passes the signed-in account, so another
 * account's endpoint answers 404 (never 403: existence is not revealed); the operator CLI
 * leaves it out.
 */
export interface EndpointRef {
  endpointId: string;
  serviceAccountId?: string;
}

export interface EndpointView {
  id: string;
  serviceAccountId: string;
  url: string;
  description: string | null;
  status: EndpointStatus;
  verified: boolean;
  verifiedAt: string | null;
  /** Consecutive failed delivery attempts across all the endpoint's events (spec 2). */
  failureCount: number;
  disabledReason: string | null;
  disabledAt: string | null;
  /** The account event types it receives; null = all (webhook.verify/test always reach it). */
  eventTypes: AccountEventType[] | null;
  createdAt: string;
  updatedAt: string;
}

export function endpointView(row: EndpointRow): EndpointView {
  return {
    id: row.id,
    serviceAccountId: row.serviceAccountId,
    url: row.url,
    description: row.description,
    status: row.status,
    verified: row.verifiedAt !== null,
    verifiedAt: row.verifiedAt?.toISOString() ?? null,
    failureCount: row.failureCount,
    disabledReason: row.disabledReason,
    disabledAt: row.disabledAt?.toISOString() ?? null,
    eventTypes: readEventTypeFilter(row.eventTypes),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export async function findEndpoint(db: Db, ref: EndpointRef): Promise<EndpointRow> {
  const notFound = new ApiError("not_found", `No webhook endpoint ${ref.endpointId}.`);
  if (!isUuid(ref.endpointId)) throw notFound;
  const { webhookEndpoints } = db.t;
  const row = await first(
    db
      .select()
      .from(webhookEndpoints)
      .where(
        ref.serviceAccountId === undefined
          ? eq(webhookEndpoints.id, ref.endpointId)
          : and(
              eq(webhookEndpoints.id, ref.endpointId),
              eq(webhookEndpoints.serviceAccountId, ref.serviceAccountId),
            ),
      ),
  );
  if (!row) throw notFound;
  return row;
}

export async function getEndpoint(db: Db, ref: EndpointRef): Promise<EndpointView> {
  return endpointView(await findEndpoint(db, ref));
}

export async function listEndpoints(db: Db, serviceAccountId: string): Promise<EndpointView[]> {
  const { webhookEndpoints } = db.t;
  const rows = await db
    .select()
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.serviceAccountId, serviceAccountId))
    .orderBy(asc(webhookEndpoints.createdAt), asc(webhookEndpoints.id));
  return rows.map(endpointView);
}
