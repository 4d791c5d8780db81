// What needs the account owner now: endpoints that were
// disabled (spec 3: after 20 failed deliveries; nothing is sent until Enable) and connections
// whose status only the owner can resolve (spec 2 vocabulary: expired, suspended, error,
// awaiting_auth), and consents the owner was warned will end (7 days and 1 day before:
// src/banking/consent-warnings.ts). The portal shows it as a banner on every page and on the
// overview.
import { and, asc, eq, gt, inArray, isNotNull, or } from "drizzle-orm";
import type { Clock } from "../core/clock.ts";
import type { Db } from "../db/store.ts";
import { listEndpoints } from "../webhooks/endpoints/records.ts";

/** Connection statuses that wait on the owner (re-authorise, reconnect, look at an error). */
const connectionStatusesNeedingOwner = ["awaiting_auth", "expired", "suspended", "error"] as const;

export interface Attention {
  disabledEndpoints: {
    id: string;
    url: string;
    description: string | null;
    disabledAt: string | null;
    disabledReason: string | null;
  }[];
  connections: {
    id: string;
    institution: string;
    status: (typeof connectionStatusesNeedingOwner)[number];
    error: string | null;
    since: string;
  }[];
  /** Linked connections whose consent ends soon: the owner was warned; Renew keeps them. */
  consentsEnding: { id: string; institution: string; consentExpiresAt: string }[];
}

export async function accountAttention(
  db: Db,
  clock: Clock,
  serviceAccountId: string,
): Promise<Attention> {
  const endpoints = await listEndpoints(db, serviceAccountId);
  const { connections } = db.t;
  const rows = await db
    .select({
      id: connections.id,
      institution: connections.institution,
      status: connections.status,
      error: connections.error,
      updatedAt: connections.updatedAt,
    })
    .from(connections)
    .where(
      and(
        eq(connections.serviceAccountId, serviceAccountId),
        inArray(connections.status, [...connectionStatusesNeedingOwner]),
      ),
    )
    .orderBy(asc(connections.createdAt), asc(connections.id));
  const ending = await db
    .select({
      id: connections.id,
      institution: connections.institution,
      consentExpiresAt: connections.consentExpiresAt,
    })
    .from(connections)
    .where(
      and(
        eq(connections.serviceAccountId, serviceAccountId),
        eq(connections.status, "linked"),
        gt(connections.consentExpiresAt, clock.now()),
        or(isNotNull(connections.consentWarned7dAt), isNotNull(connections.consentWarned1dAt)),
      ),
    )
    .orderBy(asc(connections.consentExpiresAt), asc(connections.id));
  return {
    disabledEndpoints: endpoints
      .filter((e) => e.status === "disabled")
      .map((e) => ({
        id: e.id,
        url: e.url,
        description: e.description,
        disabledAt: e.disabledAt,
        disabledReason: e.disabledReason,
      })),
    connections: rows.map((row) => ({
      id: row.id,
      institution: row.institution,
      status: row.status as Attention["connections"][number]["status"],
      error: row.error,
      since: row.updatedAt.toISOString(),
    })),
    consentsEnding: ending.map((row) => ({
      id: row.id,
      institution: row.institution,
      consentExpiresAt: row.consentExpiresAt?.toISOString() ?? "",
    })),
  };
}
