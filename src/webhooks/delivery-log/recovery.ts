// Recover (spec 6; docs/decisions.md "Recover walks a window…"): the owner re-sends, to one
// endpoint, every event of a window whose delivery there failed for good or was cut
// (recovery-window.ts), in creation order, as new manual deliveries: the exact stored bytes, a
// fresh timestamp and signature per attempt (as Resend does), counted towards the failure streak
// like any delivery. A recovery is a row walked a paced step at a time (recovery-steps.ts) from a
// cursor that moves in the same transaction as the deliveries it queues: it survives a restart and
// runs once across instances. At most one runs per endpoint (a partial unique index); limits per
// account per day bound how much a day may re-send (429 beyond).
import { and, desc, eq, gt, inArray, isNull, sql } from "drizzle-orm";
import type { Config } from "../../config/config.ts";
import type { Clock } from "../../core/clock.ts";
import { dayMs } from "../../core/dates.ts";
import { ApiError } from "../../core/errors.ts";
import { isUuid, newId } from "../../core/ids.ts";
import type { RecoveryStatus, Row } from "../../db/schema.ts";
import { type Db, first } from "../../db/store.ts";
import { enforceWindow } from "../../limits/sliding-window.ts";
import { type EndpointRef, findEndpoint } from "../endpoints/records.ts";
import { countNeverSent, countRecoverable, type RecoveryWindow } from "./recovery-window.ts";

/** Recovered events queued per second per endpoint, at most (one step a second). */
export const recoveryPacePerSecond = 10;
/** Recoveries that re-send something, per account in any 24 hours. */
export const recoveriesPerDay = { limit: 10, windowMs: dayMs } as const;
/** Events re-sent by recoveries, per account in any 24 hours. */
export const recoveredEventsPerDay = 10_000;

export interface RecoveryContext {
  db: Db;
  clock: Clock;
  config: Pick<Config, "retentionDays">;
}

export interface RecoveryView {
  id: string;
  endpointId: string;
  status: RecoveryStatus;
  since: string;
  until: string;
  /** Events of the window whose delivery had failed for good when the recovery started. */
  total: number;
  /** Re-sent so far (a manual delivery queued for each). */
  sent: number;
  /** Where the re-sent deliveries stand now. */
  delivered: number;
  failed: number;
  /** Cancelled before their first attempt (the recovery was cancelled, the endpoint stopped). */
  cancelled: number;
  inFlight: number;
  /**
   * Events of the window never sent to the endpoint (paused, disabled, unverified): read them
   * from /v1/events.
   */
  unsent: number;
  pacePerSecond: number;
  stopReason: string | null;
  createdAt: string;
  updatedAt: string;
  finishedAt: string | null;
}

type RecoveryRow = Row<"endpointRecoveries">;

/** How many of the deliveries a recovery queued are in each status (deliveries_recovery_idx). */
export function recoveryDeliveriesByStatus(db: Db, recoveryId: string) {
  const { deliveries } = db.t;
  return db
    .select({ status: deliveries.status, n: sql<number>`count(*)` })
    .from(deliveries)
    .where(eq(deliveries.recoveryId, recoveryId))
    .groupBy(deliveries.status);
}

async function recoveryView(db: Db, row: RecoveryRow): Promise<RecoveryView> {
  const byStatus = await recoveryDeliveriesByStatus(db, row.id);
  const n = (statuses: string[]) =>
    byStatus.filter((r) => statuses.includes(r.status)).reduce((sum, r) => sum + Number(r.n), 0);
  return {
    id: row.id,
    endpointId: row.endpointId,
    status: row.status,
    since: row.since.toISOString(),
    until: row.until.toISOString(),
    total: row.total,
    sent: row.sent,
    delivered: n(["succeeded"]),
    failed: n(["dropped", "failed"]),
    cancelled: n(["cancelled"]),
    inFlight: n(["pending"]),
    unsent: row.unsent,
    pacePerSecond: recoveryPacePerSecond,
    stopReason: row.stopReason,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    finishedAt: row.finishedAt?.toISOString() ?? null,
  };
}

export interface RecoveryRequest {
  since: Date;
  /** Default: now. */
  until?: Date;
}

/** What a window holds for an endpoint, before anything is started (the portal's preview). */
export interface RecoveryPreview {
  since: string;
  until: string;
  recoverable: number;
  unsent: number;
}

async function windowOf(
  ctx: RecoveryContext,
  endpoint: { id: string; serviceAccountId: string },
  request: RecoveryRequest,
): Promise<RecoveryWindow> {
  const now = ctx.clock.now();
  const until = request.until ?? now;
  if (Number.isNaN(request.since.getTime()) || Number.isNaN(until.getTime())) {
    throw new ApiError("invalid_request", "since and until must be ISO 8601 date-times.");
  }
  if (until.getTime() > now.getTime()) {
    throw new ApiError("invalid_request", "until must not be in the future.");
  }
  if (request.since.getTime() >= until.getTime()) {
    throw new ApiError("invalid_request", "since must be before until.");
  }
  const oldest = now.getTime() - ctx.config.retentionDays * dayMs;
  if (request.since.getTime() < oldest) {
    throw new ApiError(
      "invalid_request",
      `since is older than the ${ctx.config.retentionDays}-day retention: events before ${new Date(oldest).toISOString()} are no longer kept.`,
    );
  }
  return {
    serviceAccountId: endpoint.serviceAccountId,
    endpointId: endpoint.id,
    since: request.since,
    until,
  };
}

function requireReceiving(endpoint: { id: string; status: string; verifiedAt: Date | null }) {
  if (endpoint.status !== "active" || endpoint.verifiedAt === null) {
    throw new ApiError(
      "invalid_state",
      `Endpoint ${endpoint.id} is ${endpoint.verifiedAt === null ? "not verified" : endpoint.status}; deliveries are recovered only to an active and verified endpoint.`,
    );
  }
}

/** Counts what a recovery of the window would re-send, and what stays unsent. */
export async function previewRecovery(
  ctx: RecoveryContext,
  ref: EndpointRef,
  request: RecoveryRequest,
): Promise<RecoveryPreview> {
  const endpoint = await findEndpoint(ctx.db, ref);
  const window = await windowOf(ctx, endpoint, request);
  return {
    since: window.since.toISOString(),
    until: window.until.toISOString(),
    recoverable: await countRecoverable(ctx.db, window),
    unsent: await countNeverSent(ctx.db, window, endpoint),
  };
}

/** Recoveries of the account that re-send something, started in the last 24 hours. */
function recentRecoveries(tx: Db, serviceAccountId: string, now: Date) {
  const { endpointRecoveries } = tx.t;
  return tx
    .select({ total: endpointRecoveries.total })
    .from(endpointRecoveries)
    .where(
      and(
        eq(endpointRecoveries.serviceAccountId, serviceAccountId),
        gt(endpointRecoveries.createdAt, new Date(now.getTime() - dayMs)),
        gt(endpointRecoveries.total, 0),
      ),
    );
}

function runningConflict(): ApiError {
  return new ApiError(
    "conflict",
    "A recovery of this endpoint is running; wait for it to finish or cancel it first.",
  );
}

/** True for the unique index that allows one running recovery per endpoint. */
function isRunningIndexViolation(error: unknown): boolean {
  const text = error instanceof Error ? `${error.message} ${String(error.cause ?? "")}` : "";
  return (
    text.includes("endpoint_recoveries_running_idx") ||
    text.includes("endpoint_recoveries.endpoint_id")
  );
}

/**
 * Starts recovering the window for the endpoint. The recovery runs in `svc serve` (any
 * instance), one step a second; a window with nothing to re-send is recorded as completed at
 * once (and costs nothing of the daily limits), so the owner still sees how many stay unsent.
 */
export async function startRecovery(
  ctx: RecoveryContext,
  ref: EndpointRef,
  request: RecoveryRequest,
): Promise<RecoveryView> {
  const { db, clock } = ctx;
  const endpoint = await findEndpoint(db, ref);
  requireReceiving(endpoint);
  const window = await windowOf(ctx, endpoint, request);
  const id = newId();
  try {
    await db.write(async (tx) => {
      const { endpointRecoveries } = tx.t;
      const now = clock.now();
      const running = await first(
        tx
          .select({ id: endpointRecoveries.id })
          .from(endpointRecoveries)
          .where(
            and(
              eq(endpointRecoveries.endpointId, endpoint.id),
              eq(endpointRecoveries.status, "running"),
            ),
          ),
      );
      if (running) throw runningConflict();
      const total = await countRecoverable(tx, window);
      const unsent = await countNeverSent(tx, window, endpoint);
      if (total > 0) {
        const recent = await recentRecoveries(tx, endpoint.serviceAccountId, now);
        const used = recent.reduce((sum, r) => sum + r.total, 0);
        if (used + total > recoveredEventsPerDay) {
          throw new ApiError(
            "rate_limited",
            `This window holds ${total} failed deliveries; recoveries may re-send at most ${recoveredEventsPerDay} events per day per account and ${Math.max(0, recoveredEventsPerDay - used)} remain today. Choose a shorter window or try again later.`,
            { "Retry-After": "3600" },
          );
        }
        await enforceWindow(
          tx,
          clock,
          { key: `recoveries:${endpoint.serviceAccountId}`, ...recoveriesPerDay },
          `Too many recoveries: at most ${recoveriesPerDay.limit} per day per account`,
        );
      }
      await tx.insert(endpointRecoveries).values({
        id,
        endpointId: endpoint.id,
        serviceAccountId: endpoint.serviceAccountId,
        since: window.since,
        until: window.until,
        status: total > 0 ? "running" : "completed",
        total,
        sent: 0,
        unsent,
        nextStepAt: total > 0 ? now : null,
        createdAt: now,
        updatedAt: now,
        finishedAt: total > 0 ? null : now,
      });
    });
  } catch (error) {
    // Two requests at once (another instance): the index lets one through.
    if (isRunningIndexViolation(error)) throw runningConflict();
    throw error;
  }
  return (await getRecovery(db, { ...ref, recoveryId: id })) as RecoveryView;
}

export interface RecoveryRef extends EndpointRef {
  recoveryId: string;
}

/** One recovery of the endpoint. */
export async function getRecovery(db: Db, ref: RecoveryRef): Promise<RecoveryView> {
  const endpoint = await findEndpoint(db, ref);
  const notFound = new ApiError("not_found", `No recovery ${ref.recoveryId} of this endpoint.`);
  if (!isUuid(ref.recoveryId)) throw notFound;
  const { endpointRecoveries } = db.t;
  const row = await first(
    db
      .select()
      .from(endpointRecoveries)
      .where(
        and(
          eq(endpointRecoveries.id, ref.recoveryId),
          eq(endpointRecoveries.endpointId, endpoint.id),
        ),
      ),
  );
  if (!row) throw notFound;
  return recoveryView(db, row);
}

/** The endpoint's recoveries, newest first (the running one, if any, comes first). */
export async function listRecoveries(
  db: Db,
  ref: EndpointRef,
  limit = 10,
): Promise<RecoveryView[]> {
  const endpoint = await findEndpoint(db, ref);
  const { endpointRecoveries } = db.t;
  const rows = await db
    .select()
    .from(endpointRecoveries)
    .where(eq(endpointRecoveries.endpointId, endpoint.id))
    .orderBy(desc(endpointRecoveries.createdAt), desc(endpointRecoveries.id))
    .limit(limit);
  return Promise.all(rows.map((row) => recoveryView(db, row)));
}

/**
 * Cancels the endpoint's running recovery: no more steps, and its deliveries not yet attempted
 * are cancelled (one whose attempt is under way finishes). 409 when none is running.
 */
export async function cancelRecovery(
  ctx: Pick<RecoveryContext, "db" | "clock">,
  ref: EndpointRef,
): Promise<RecoveryView> {
  const { db, clock } = ctx;
  const endpoint = await findEndpoint(db, ref);
  const cancelled = await db.write(async (tx) => {
    const { deliveries, endpointRecoveries } = tx.t;
    const now = clock.now();
    const [row] = await tx
      .update(endpointRecoveries)
      .set({
        status: "cancelled",
        nextStepAt: null,
        stopReason: "cancelled by a person",
        updatedAt: now,
        finishedAt: now,
      })
      .where(
        and(
          eq(endpointRecoveries.endpointId, endpoint.id),
          eq(endpointRecoveries.status, "running"),
        ),
      )
      .returning();
    if (!row) return undefined;
    await tx
      .update(deliveries)
      .set({
        status: "cancelled",
        nextAttemptAt: null,
        completedAt: now,
        lastError: "recovery cancelled",
      })
      .where(
        and(
          eq(deliveries.recoveryId, row.id),
          inArray(deliveries.status, ["pending"]),
          eq(deliveries.attemptCount, 0),
          isNull(deliveries.leaseExpiresAt),
        ),
      );
    return row;
  });
  if (!cancelled) {
    throw new ApiError("invalid_state", `No recovery of endpoint ${endpoint.id} is running.`);
  }
  return recoveryView(db, cancelled);
}
