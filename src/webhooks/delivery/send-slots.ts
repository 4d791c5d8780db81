// The dispatcher's book of claimed deliveries (pure; no I/O): which are sending, which wait in
// the queue to start, and how many more each endpoint may take. Claims run ahead of the sender by
// up to the caps again (`claimAhead`: the global cap, and each endpoint's), so a finished send is
// followed by the next one at once, from the queue, instead of after the next turn's claim; one
// endpoint's sends never exceed its cap.
import type { ClaimedDelivery } from "./claimed-delivery.ts";

export interface SendSlots {
  /** Sends running now. */
  readonly sending: number;
  /** Claimed deliveries waiting to start. */
  readonly waiting: number;
  /** How many more deliveries a claim may take now. */
  claimRoom(): number;
  /** How many more deliveries of this endpoint a claim may take now. */
  endpointClaimRoom(endpointId: string): number;
  /** Endpoints that can take no more claims (skipped by the claim query). */
  fullEndpoints(): string[];
  /** Adds claimed deliveries to the queue, in the order claimed. */
  enqueue(claimed: ClaimedDelivery[]): void;
  /** Takes the oldest queued delivery whose endpoint has a free send slot, and counts it sending. */
  startNext(): ClaimedDelivery | undefined;
  /** A send ended: its slots are free again. */
  finished(delivery: ClaimedDelivery): void;
  /** Empties the queue (stop: those were never sent) and returns what it held. */
  drainQueue(): ClaimedDelivery[];
}

export interface SendSlotLimits {
  /** Global cap on sends in flight. */
  concurrency: number;
  /** Cap on one endpoint's sends in flight. */
  endpointConcurrency: number;
  /** How many caps' worth of deliveries may be held (sending + waiting) in all; default 2. */
  claimAhead?: number;
  /**
   * The same per endpoint; default 1. The database may allow an endpoint fewer (claims.ts
   * holdCap: its cap alone while another process holds leases on it).
   */
  endpointClaimAhead?: number;
}

export function createSendSlots(limits: SendSlotLimits): SendSlots {
  const ahead = limits.claimAhead ?? 2;
  const heldCap = limits.concurrency * ahead;
  // Per endpoint (endpointClaimAhead): a lease lives from its claim until its outcome is
  // recorded in the next turn, so with no more held than sent an endpoint's slot stood idle from
  // a send's end until a claim after that turn had committed, two turns a delivery
  // (BENCHMARKS.md, 2026-12-02). The cap on sends holds for the whole cluster through the leases
  // (claims.ts holdCap).
  const endpointHeldCap = limits.endpointConcurrency * (limits.endpointClaimAhead ?? 1);
  const queue: ClaimedDelivery[] = [];
  /** Per endpoint: deliveries held (sending or waiting) and those sending. */
  const held = new Map<string, number>();
  const sendingBy = new Map<string, number>();
  let sending = 0;
  const bump = (map: Map<string, number>, key: string, by: number) => {
    const value = (map.get(key) ?? 0) + by;
    if (value > 0) map.set(key, value);
    else map.delete(key);
  };
  return {
    get sending() {
      return sending;
    },
    get waiting() {
      return queue.length;
    },
    claimRoom: () => Math.max(0, heldCap - sending - queue.length),
    endpointClaimRoom: (endpointId) => Math.max(0, endpointHeldCap - (held.get(endpointId) ?? 0)),
    fullEndpoints() {
      const full: string[] = [];
      for (const [endpointId, count] of held) if (count >= endpointHeldCap) full.push(endpointId);
      return full;
    },
    enqueue(claimed) {
      for (const delivery of claimed) {
        queue.push(delivery);
        bump(held, delivery.endpointId, 1);
      }
    },
    startNext() {
      if (sending >= limits.concurrency) return undefined;
      const index = queue.findIndex(
        (d) => (sendingBy.get(d.endpointId) ?? 0) < limits.endpointConcurrency,
      );
      if (index < 0) return undefined;
      const [delivery] = queue.splice(index, 1) as [ClaimedDelivery];
      sending++;
      bump(sendingBy, delivery.endpointId, 1);
      return delivery;
    },
    finished(delivery) {
      sending--;
      bump(sendingBy, delivery.endpointId, -1);
      bump(held, delivery.endpointId, -1);
    },
    drainQueue() {
      const drained = queue.splice(0);
      for (const delivery of drained) bump(held, delivery.endpointId, -1);
      return drained;
    },
  };
}
