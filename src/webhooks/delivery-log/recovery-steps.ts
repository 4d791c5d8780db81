// The paced walk of running recoveries (recovery.ts). A step takes the recovery's turn with a
// conditional UPDATE of next_step_at (so across processes and instances exactly one takes it),
// queues manual deliveries for the next recoverable events after the cursor, at most
// `recoveryPacePerSecond` of them, all due now, and moves the cursor and the sent count, all in
// one transaction: a restart resumes after the last event queued, never before it. The next
// step is due a second later, so the endpoint gets at most that many recovered first attempts a
// second. An endpoint that stopped receiving (paused, disabled) stops its recovery.
import { and, asc, eq, lte } from "drizzle-orm";
import type { BackgroundJob } from "../../core/background-job.ts";
import type { Clock } from "../../core/clock.ts";
import { newId } from "../../core/ids.ts";
import type { NewRow } from "../../db/schema.ts";
import { type Db, first } from "../../db/store.ts";
import type { Logger } from "../../log/log.ts";
import type { OutboxSignal } from "../events/outbox-signal.ts";
import { recoveryPacePerSecond } from "./recovery.ts";
import { nextRecoverable } from "./recovery-window.ts";

/** Time between two steps of one recovery. */
export const recoveryStepMs = 1_000;
/** How often the walker looks for due steps (a step is due at most this much late). */
const recoveryTickMs = 200;

/** Runs one step of recovery `id` if it is due; resolves with the deliveries it queued. */
export function stepRecovery(db: Db, clock: Clock, id: string): Promise<number> {
  return db.write(async (tx) => {
    const { deliveries, endpointRecoveries, webhookEndpoints } = tx.t;
    const now = clock.now();
    const [row] = await tx
      .update(endpointRecoveries)
      .set({ nextStepAt: new Date(now.getTime() + recoveryStepMs), updatedAt: now })
      .where(
        and(
          eq(endpointRecoveries.id, id),
          eq(endpointRecoveries.status, "running"),
          lte(endpointRecoveries.nextStepAt, now),
        ),
      )
      .returning();
    if (!row) return 0;
    const endpoint = await first(
      tx
        .select({ status: webhookEndpoints.status, verifiedAt: webhookEndpoints.verifiedAt })
        .from(webhookEndpoints)
        .where(eq(webhookEndpoints.id, row.endpointId)),
    );
    if (endpoint?.status !== "active" || endpoint.verifiedAt === null) {
      await tx
        .update(endpointRecoveries)
        .set({
          status: "stopped",
          nextStepAt: null,
          stopReason: `endpoint ${endpoint?.verifiedAt === null ? "not verified" : endpoint?.status}`,
          finishedAt: now,
        })
        .where(eq(endpointRecoveries.id, id));
      return 0;
    }
    const batch = await nextRecoverable(
      tx,
      {
        serviceAccountId: row.serviceAccountId,
        endpointId: row.endpointId,
        since: row.since,
        until: row.until,
      },
      row.cursorCreatedAt && row.cursorEventId
        ? { createdAt: row.cursorCreatedAt, eventId: row.cursorEventId }
        : null,
      recoveryPacePerSecond,
    );
    if (batch.length > 0) {
      await tx.insert(deliveries).values(
        batch.map(
          (event): NewRow<"deliveries"> => ({
            id: newId(),
            eventId: event.id,
            endpointId: row.endpointId,
            kind: "event",
            manual: true,
            recoveryId: row.id,
            status: "pending",
            attemptCount: 0,
            nextAttemptAt: now,
            createdAt: now,
          }),
        ),
      );
    }
    const last = batch.at(-1);
    const sent = row.sent + batch.length;
    const done = batch.length < recoveryPacePerSecond;
    await tx
      .update(endpointRecoveries)
      .set({
        sent,
        // An event whose last retry failed after the start joins the walk: total grows with it.
        total: Math.max(row.total, sent),
        ...(last ? { cursorCreatedAt: last.createdAt, cursorEventId: last.id } : {}),
        ...(done ? { status: "completed" as const, nextStepAt: null, finishedAt: now } : {}),
      })
      .where(eq(endpointRecoveries.id, id));
    return batch.length;
  });
}

/** Steps every recovery that is due; resolves with the deliveries queued. */
export async function runDueRecoveries(db: Db, clock: Clock): Promise<number> {
  const { endpointRecoveries } = db.t;
  const due = await db
    .select({ id: endpointRecoveries.id })
    .from(endpointRecoveries)
    .where(
      and(
        eq(endpointRecoveries.status, "running"),
        lte(endpointRecoveries.nextStepAt, clock.now()),
      ),
    )
    .orderBy(asc(endpointRecoveries.nextStepAt))
    .limit(100);
  let queued = 0;
  for (const { id } of due) queued += await stepRecovery(db, clock, id);
  return queued;
}

/**
 * The recovery walker of `svc serve`: looks for due steps several times a second (a step is due
 * a second after the last; a one-second tick would make it two), one look at a time.
 */
export function startRecoveryJob(deps: {
  db: Db;
  clock: Clock;
  log: Logger;
  outbox?: OutboxSignal;
}): BackgroundJob {
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    if (running !== undefined) return;
    running = (async () => {
      try {
        // Sent at once by this process's dispatcher (or another's, at its tick).
        if ((await runDueRecoveries(deps.db, deps.clock)) > 0) deps.outbox?.notify();
      } catch (error) {
        deps.log.error("recovery step failed", { error });
      } finally {
        running = undefined;
      }
    })();
  }, recoveryTickMs);
  return {
    name: "recoveries",
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
