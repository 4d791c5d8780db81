// The delivery dispatcher (at-least-once: nothing claimed is lost to a crash) wires four parts,
// each in a file of its own: claiming (claims.ts, with a lease, ahead of the sender
// into send-slots.ts), sending (send-attempt.ts, under a global and a per-endpoint cap),
// recording (outcome-recorder.ts, a batch per turn, in the claim's transaction:
// turn-transaction.ts) and scheduling (turns.ts). A
// finished send frees its slot at once and the next claimed delivery starts without waiting for
// the database; its outcome is recorded in the next turn. It wakes at once when this process
// commits deliveries (outbox signal) and ticks every second (croner) for due retries and for
// events written by other processes.
//
// Stop: claiming ends at once; sends already under way get a grace period to finish and be
// recorded; any still running after it are abandoned and their leases released (the row is
// due again immediately), so the next start re-sends them at once instead of waiting for the
// lease to run out. A crash (kill -9) releases nothing itself: another process (or the restarted
// one) sees the holder gone and makes its leases due at once (src/cluster/processes.ts); the
// lease's end is the backstop when that cannot be told.
import { Cron } from "croner";
import type { BackgroundJob } from "../../core/background-job.ts";
import type { Clock } from "../../core/clock.ts";
import type { MasterKey } from "../../crypto/master-key.ts";
import type { Db } from "../../db/store.ts";
import type { Logger } from "../../log/log.ts";
import type { Metrics } from "../../metrics/metrics.ts";
import { createSigningSecretCache } from "../endpoints/secrets.ts";
import type { OutboxSignal } from "../events/outbox-signal.ts";
import type { AttemptOutcome } from "./attempt-outcome.ts";
import type { ClaimedDelivery } from "./claimed-delivery.ts";
import { type ClaimRequest, claimDueDeliveries } from "./claims.ts";
import { releaseLeases } from "./lease-release.ts";
import { recordFinishedAttempts } from "./outcome-recorder.ts";
import { sendAttempt } from "./send-attempt.ts";
import { createSendSlots } from "./send-slots.ts";
import { deliveryTimeoutMs, type Sender } from "./sender.ts";
import { recordAndClaim, sharesTurnTransaction } from "./turn-transaction.ts";
import { createTurns } from "./turns.ts";

/**
 * Longer than a queued delivery's wait for its endpoint's send slot (each send under way ends
 * within the 10 s exchange) plus its own exchange and recording, so a live send is never
 * re-claimed.
 */
export const deliveryLeaseMs = 30_000;
/** How long stop() lets sends under way finish before abandoning them (README, operator guide). */
export const stopGraceMs = 5_000;
/**
 * Caps' worth of one endpoint's deliveries claimed ahead of its sends (send-slots.ts, claims.ts
 * holdCap): on PostgreSQL, where a turn takes milliseconds and a lease lasts from one turn's
 * claim to a later turn's record, twice the cap (+24 % deliveries a second: BENCHMARKS.md,
 * 2026-12-02); on SQLite a turn is short, and holding more only cost CPU (13 % a delivery).
 */
const endpointClaimAhead = (engine: Db["engine"]) => (engine === "postgres" ? 2 : 1);
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
  /** This process's id (src/cluster/processes.ts), written on every lease it takes. */
  processId?: string;
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

export interface Dispatcher extends BackgroundJob {
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
  const slots = createSendSlots({
    concurrency: options.concurrency,
    endpointConcurrency: options.endpointConcurrency,
    endpointClaimAhead: endpointClaimAhead(db.engine),
  });
  /** Sends under way; one missing here when its send ends was abandoned at stop. */
  const running = new Map<string, ClaimedDelivery>();
  /** Attempts that ended, recorded in the next turn. */
  let finished: AttemptOutcome[] = [];
  let stopping = false;
  let attempts = 0;
  let idleWaiters: (() => void)[] = [];
  let unsubscribe: (() => Promise<void>) | undefined;
  let cron: Cron | undefined;
  const recorder = { db, clock, log, metrics: options.metrics, onMailQueued: options.onMailQueued };
  const attemptDeps = { sender, signingSecret: createSigningSecretCache(options.masterKey), clock };

  const busy = () => slots.sending > 0 || slots.waiting > 0 || finished.length > 0;
  const notifyIdle = () => {
    if (busy()) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  };
  const idle = () =>
    busy() ? new Promise<void>((resolve) => idleWaiters.push(resolve)) : Promise.resolve();

  /** Recording: what finished since the last turn, in one batch. */
  function flush(): Promise<void> {
    const batch = finished;
    finished = [];
    return recordFinishedAttempts(recorder, batch);
  }

  /** What a claim asks for now: as many due deliveries as the slots have room for. */
  function claimRequest(): ClaimRequest | undefined {
    if (stopping) return undefined;
    const room = slots.claimRoom();
    if (room <= 0) return undefined;
    const now = clock.now();
    return {
      now,
      leaseUntil: new Date(now.getTime() + leaseMs),
      limit: room,
      endpointRoom: slots.endpointClaimRoom,
      fullEndpoints: slots.fullEndpoints(),
      endpointCap: options.endpointConcurrency,
      endpointHoldCap: options.endpointConcurrency * endpointClaimAhead(db.engine),
      ...(options.processId ? { holder: options.processId } : {}),
    };
  }

  /** Claiming in a transaction of its own, then start what can start. */
  async function claim(): Promise<number> {
    const request = claimRequest();
    if (!request) return 0;
    let claimed: ClaimedDelivery[];
    try {
      claimed = await claimDueDeliveries(db, request);
    } catch (error) {
      // e.g. the database unreachable: the rows stay due; the next tick tries again.
      log.error("claiming deliveries failed", { error });
      return 0;
    }
    return accept(claimed);
  }

  /** Claimed deliveries join the queue and start while there are free send slots. */
  async function accept(claimed: ClaimedDelivery[]): Promise<number> {
    // Stopping began while the claim was written: release at once instead of sending.
    if (stopping) {
      await releaseLeases(recorder, claimed);
      return 0;
    }
    slots.enqueue(claimed);
    if (db.engine === "sqlite") startQueued();
    // PostgreSQL: the sends start on the event loop's next turn, after the next turn of work
    // (which starts as this one ends) has sent its first statements: starting a claim's sends
    // holds the thread for milliseconds, and the server works on those statements meanwhile
    // instead of waiting for them (BENCHMARKS.md, 2026-12-01; on SQLite the statements run on
    // this thread, so there is nothing to overlap and the deferral only cost).
    else if (claimed.length > 0) setImmediate(() => !stopping && startQueued());
    return claimed.length;
  }

  /**
   * A turn: record what finished, then claim into the freed slots, both in one transaction
   * (turn-transaction.ts); on PostgreSQL a batch with failures and the claim each in its own.
   */
  async function turn(): Promise<void> {
    if (!sharesTurnTransaction(db.engine, finished)) {
      await flush();
      await claim();
      return;
    }
    const batch = finished;
    finished = [];
    const request = claimRequest();
    if (batch.length === 0 && !request) return;
    await accept(await recordAndClaim(recorder, batch, request));
  }

  /** Sending: queued deliveries start while there are free send slots. */
  function startQueued(): void {
    for (let next = slots.startNext(); next; next = slots.startNext()) launch(next);
  }

  function launch(delivery: ClaimedDelivery): void {
    attempts++;
    running.set(delivery.id, delivery);
    void sendAttempt(attemptDeps, delivery).then((result) => {
      // Abandoned at stop: its lease was released; nothing is recorded for it.
      if (!running.delete(delivery.id)) return;
      slots.finished(delivery);
      finished.push({ delivery, result });
      startQueued();
      turns.wake();
    });
  }

  const turns = createTurns(async () => {
    await turn();
    notifyIdle();
  }, options.batchDelayMs ?? defaultBatchDelayMs);

  return {
    name: "webhook-dispatcher",
    start() {
      unsubscribe = options.outbox?.subscribe(turns.wake);
      if (options.schedule !== false) {
        cron = new Cron("* * * * * *", { protect: true }, turns.wake);
      }
      turns.wake();
    },
    wake: turns.wake,
    async runDue() {
      const before = attempts;
      for (;;) {
        const claimed = await turns.run(claim);
        await idle();
        await turns.settled();
        if (claimed === 0 && !busy()) return attempts - before;
      }
    },
    inFlight: () => slots.sending,
    async stop() {
      stopping = true;
      await unsubscribe?.();
      cron?.stop();
      // Claimed but never started: due again at once, for the next start.
      await releaseLeases(recorder, slots.drainQueue());
      const grace = Math.min(options.stopGraceMs ?? stopGraceMs, deliveryTimeoutMs);
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        idle(),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, grace);
        }),
      ]);
      clearTimeout(timer);
      await turns.run(flush);
      const abandoned = [...running.values()];
      running.clear();
      for (const delivery of abandoned) slots.finished(delivery);
      await releaseLeases(recorder, abandoned);
      notifyIdle();
      if (abandoned.length > 0)
        log.info("released unfinished deliveries for the next start", {
          deliveries: abandoned.length,
        });
      sender.close();
    },
  };
}
