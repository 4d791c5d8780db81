// The delivery dispatcher (DESIGN.md "Delivery is at-least-once and durable"): claims due
// deliveries with a lease, ahead of the sender (send-slots.ts), sends them under a global and a
// per-endpoint concurrency cap, and records finished attempts in batches. A finished send frees
// its slot at once and the next claimed delivery starts without waiting for the database; the
// outcome is recorded in the next turn, together with its batch. It wakes at once when this process commits deliveries
// (outbox signal) and ticks every second (croner) for due retries and for events written by
// other processes.
//
// Stop: claiming ends at once; sends already under way get a grace period to finish and be
// recorded; any still running after it are abandoned and their leases released (the row is
// due again immediately), so the next start re-sends them at once instead of waiting for the
// lease to run out. A crash (kill -9) releases nothing: those rows wait for their lease.
import { Cron } from "croner";
import { and, eq, inArray } from "drizzle-orm";
import type { Clock } from "../clock.ts";
import type { MasterKey } from "../crypto/master-key.ts";
import type { Db } from "../db/store.ts";
import type { Logger } from "../log.ts";
import type { Metrics } from "../metrics/metrics.ts";
import type { Worker } from "../runtime.ts";
import { type ClaimedDelivery, claimDueDeliveries } from "./delivery-claims.ts";
import {
  type AttemptOutcome,
  type BatchDispositions,
  recordOutcomes,
} from "./delivery-outcomes.ts";
import type { OutboxSignal } from "./outbox-signal.ts";
import { deriveSigningSecret } from "./secrets.ts";
import { createSendSlots } from "./send-slots.ts";
import { deliveryTimeoutMs, type Sender, type SendResult } from "./sender.ts";

/** Longer than the 10 s exchange plus recording, so a live send is never re-claimed. */
export const deliveryLeaseMs = 20_000;
/** How long stop() lets sends under way finish before abandoning them (README, operator guide). */
export const stopGraceMs = 5_000;
/** How long a turn of work waits to gather completions and new events (bounded added latency). */
const defaultBatchDelayMs = 2;

export interface DispatcherOptions {
  db: Db;
  clock: Clock;
  log: Logger;
  masterKey: MasterKey;
  sender: Sender;
  outbox?: OutboxSignal;
  /** Global cap on sends in flight. */
  concurrency: number;
  /** Cap per endpoint, so one slow receiver cannot take every slot. */
  endpointConcurrency: number;
  leaseMs?: number;
  /** How long stop() lets sends under way finish before releasing them (default 5 s). */
  stopGraceMs?: number;
  /** See `work()`; default 2 ms. */
  batchDelayMs?: number;
  /** Tick every second (default true; tests drive `runDue` by hand under a fake clock). */
  schedule?: boolean;
  /** Called when an endpoint was disabled and its owner's e-mail queued. */
  onMailQueued?: () => void;
  /** Counts attempts, their latency and where deliveries end (svc serve's /metrics). */
  metrics?: Pick<Metrics, "deliveryAttempt" | "deliveryFinished" | "endpointDisabled">;
}

export interface Dispatcher extends Worker {
  /** Starts listening to the outbox signal and the one-second tick. */
  start(): void;
  /** Claim and send soon (coalesced). */
  wake(): void;
  /**
   * Sends everything due now and waits until it is recorded; resolves with the number of
   * attempts made. For tests under a fake clock and for draining.
   */
  runDue(): Promise<number>;
  /** Sends in flight right now. */
  inFlight(): number;
}

export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const { db, clock, log, sender } = options;
  const leaseMs = options.leaseMs ?? deliveryLeaseMs;
  const batchDelayMs = options.batchDelayMs ?? defaultBatchDelayMs;
  const slots = createSendSlots({
    concurrency: options.concurrency,
    endpointConcurrency: options.endpointConcurrency,
  });
  /** Sends under way; one missing here when its send ends was abandoned at stop. */
  const running = new Map<string, ClaimedDelivery>();
  let finished: AttemptOutcome[] = [];
  let workScheduled = false;
  /** Turns of work run one at a time: the one running, then at most one more. */
  let turn: Promise<void> = Promise.resolve();
  let stopping = false;
  let attempts = 0;
  let idleWaiters: (() => void)[] = [];
  let unsubscribe: (() => void) | undefined;
  let cron: Cron | undefined;

  const busy = () => slots.sending > 0 || slots.waiting > 0 || finished.length > 0;
  const notifyIdle = () => {
    if (busy()) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  };
  const idle = () =>
    busy() ? new Promise<void>((resolve) => idleWaiters.push(resolve)) : Promise.resolve();

  /** Claims as many due deliveries as there is room for and starts sending them. */
  async function pump(): Promise<number> {
    if (stopping) return 0;
    const room = slots.claimRoom();
    if (room <= 0) return 0;
    const now = clock.now();
    let claimed: ClaimedDelivery[];
    try {
      claimed = await claimDueDeliveries(db, {
        now,
        leaseUntil: new Date(now.getTime() + leaseMs),
        limit: room,
        endpointRoom: slots.endpointClaimRoom,
        fullEndpoints: slots.fullEndpoints(),
      });
    } catch (error) {
      // e.g. the database unreachable: the rows stay due; the next tick tries again.
      log.error("claiming deliveries failed", { error });
      return 0;
    }
    // Stopping began while the claim was written: release at once instead of sending.
    if (stopping) {
      await releaseLeases(claimed);
      return 0;
    }
    slots.enqueue(claimed);
    startQueued();
    return claimed.length;
  }

  /** Starts queued deliveries while there are free send slots. */
  function startQueued(): void {
    for (let next = slots.startNext(); next; next = slots.startNext()) launch(next);
  }

  function launch(delivery: ClaimedDelivery): void {
    attempts++;
    running.set(delivery.id, delivery);
    // The secret is derived per attempt from the current salt: a rotation applies to the very
    // next attempt, retries included (spec 3).
    const secret = deriveSigningSecret(options.masterKey, delivery.endpointId, delivery.secretSalt);
    void sender
      .send({ url: delivery.url, eventId: delivery.eventId, body: delivery.body, secret })
      .catch(
        (error: unknown): SendResult => ({
          startedAt: clock.now(),
          durationMs: 0,
          ok: false,
          statusCode: null,
          errorClass: "connect",
          errorMessage: error instanceof Error ? error.message : String(error),
        }),
      )
      .then((result) => {
        // Abandoned at stop: its lease was released; nothing is recorded for it.
        if (!running.delete(delivery.id)) return;
        slots.finished(delivery);
        finished.push({ delivery, result });
        startQueued();
        schedule();
      });
  }

  function observe(dispositions: BatchDispositions): void {
    const { metrics } = options;
    if (!metrics) return;
    metrics.deliveryFinished("succeeded", dispositions.succeeded);
    metrics.deliveryFinished("retry_scheduled", dispositions.retryScheduled);
    metrics.deliveryFinished("dropped", dispositions.dropped);
  }

  async function flush(): Promise<void> {
    const batch = finished;
    finished = [];
    if (batch.length === 0) return;
    // Attempts are counted even if recording them fails below: they did reach the network.
    for (const { result } of batch) options.metrics?.deliveryAttempt(result);
    try {
      const { disabled, dispositions } = await recordOutcomes(db, clock, batch);
      observe(dispositions);
      for (const endpoint of disabled) {
        options.metrics?.endpointDisabled();
        log.warn("webhook endpoint disabled", {
          endpointId: endpoint.endpointId,
          serviceAccountId: endpoint.serviceAccountId,
          reason: endpoint.reason,
        });
      }
      if (disabled.length > 0) options.onMailQueued?.();
      for (const { delivery, result } of batch) {
        if (result.ok) continue;
        log.debug("delivery attempt failed", {
          deliveryId: delivery.id,
          endpointId: delivery.endpointId,
          attempt: delivery.attemptCount + 1,
          statusCode: result.statusCode,
          errorClass: result.errorClass,
        });
      }
    } catch (error) {
      // Not recorded: the leases run out and the deliveries are sent again (at-least-once).
      log.error("recording delivery attempts failed", { error, attempts: batch.length });
    }
  }

  /**
   * One turn of work: record what finished, then claim into the freed slots. Turns are
   * coalesced over `batchDelayMs`, so a burst of completions or of new events costs one
   * transaction each way instead of one per delivery (DESIGN.md: batch hot-path writes), and
   * they run one after another: a turn waiting for the database delays the next, never
   * overlaps it.
   */
  function runTurn<T>(work: () => Promise<T>): Promise<T> {
    const result = turn.then(work);
    turn = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  function work(): Promise<void> {
    workScheduled = false;
    return runTurn(async () => {
      await flush();
      await pump();
      notifyIdle();
    });
  }

  function schedule(): void {
    if (workScheduled) return;
    workScheduled = true;
    setTimeout(work, batchDelayMs);
  }

  async function releaseLeases(abandoned: ClaimedDelivery[]): Promise<void> {
    if (abandoned.length === 0) return;
    const { deliveries } = db.t;
    try {
      await db.write((tx) =>
        tx
          .update(deliveries)
          .set({ nextAttemptAt: clock.now(), leaseExpiresAt: null })
          .where(
            and(
              inArray(
                deliveries.id,
                abandoned.map((d) => d.id),
              ),
              eq(deliveries.status, "pending"),
            ),
          ),
      );
    } catch (error) {
      log.error("releasing delivery leases failed; they expire on their own", { error });
    }
  }

  return {
    name: "webhook-dispatcher",
    start() {
      unsubscribe = options.outbox?.subscribe(schedule);
      if (options.schedule !== false) {
        cron = new Cron("* * * * * *", { protect: true }, schedule);
      }
      schedule();
    },
    wake: schedule,
    async runDue() {
      const before = attempts;
      for (;;) {
        const claimed = await runTurn(pump);
        await idle();
        await turn;
        if (claimed === 0 && !busy()) return attempts - before;
      }
    },
    inFlight: () => slots.sending,
    async stop() {
      stopping = true;
      unsubscribe?.();
      cron?.stop();
      // Claimed but never started: due again at once, for the next start.
      const unsent = slots.drainQueue();
      await releaseLeases(unsent);
      const grace = Math.min(options.stopGraceMs ?? stopGraceMs, deliveryTimeoutMs);
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        idle(),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, grace);
        }),
      ]);
      clearTimeout(timer);
      await runTurn(flush);
      const abandoned = [...running.values()];
      running.clear();
      for (const delivery of abandoned) slots.finished(delivery);
      await releaseLeases(abandoned);
      notifyIdle();
      if (abandoned.length > 0)
        log.info("released unfinished deliveries for the next start", {
          deliveries: abandoned.length,
        });
      sender.close();
    },
  };
}
