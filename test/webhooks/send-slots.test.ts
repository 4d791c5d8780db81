// The dispatcher's book of claimed deliveries (src/webhooks/delivery/send-slots.ts): claims run ahead of
// the sender, sends respect the global and per-endpoint caps, and nothing is counted twice.
import { describe, expect, test } from "bun:test";
import type { ClaimedDelivery } from "../../src/webhooks/delivery/claimed-delivery.ts";
import { createSendSlots } from "../../src/webhooks/delivery/send-slots.ts";

let next = 0;
function delivery(endpointId: string): ClaimedDelivery {
  next++;
  return {
    id: `d${next}`,
    eventId: `e${next}`,
    endpointId,
    serviceAccountId: "sa",
    attemptCount: 0,
    body: "{}",
    url: "https://example.com/h",
    secretSalt: "salt",
    claimToken: "claim",
  };
}

function startAll(slots: ReturnType<typeof createSendSlots>): ClaimedDelivery[] {
  const started: ClaimedDelivery[] = [];
  for (let d = slots.startNext(); d; d = slots.startNext()) started.push(d);
  return started;
}

describe("send slots", () => {
  test("claims may run ahead of the sender by the global cap again (claimAhead 2)", () => {
    const slots = createSendSlots({ concurrency: 4, endpointConcurrency: 4 });
    expect(slots.claimRoom()).toBe(8);
    slots.enqueue(["a", "b", "c", "d", "a", "b"].map(delivery));
    expect(slots.claimRoom()).toBe(2);
    expect(startAll(slots)).toHaveLength(4);
    expect(slots.sending).toBe(4);
    expect(slots.waiting).toBe(2);
    expect(slots.claimRoom()).toBe(2);
  });

  test("a finished send frees its slot and the next queued delivery starts in claim order", () => {
    const slots = createSendSlots({ concurrency: 2, endpointConcurrency: 2 });
    const queued = ["a", "b", "c"].map(delivery);
    slots.enqueue(queued);
    const [first] = startAll(slots);
    expect(slots.startNext()).toBeUndefined();
    slots.finished(first as ClaimedDelivery);
    expect(slots.startNext()?.id).toBe(queued[2]?.id);
  });

  test("one endpoint never has more than endpointConcurrency sends; others pass it in the queue", () => {
    const slots = createSendSlots({ concurrency: 8, endpointConcurrency: 2 });
    const queued = ["slow", "slow", "slow", "slow", "fast"].map(delivery);
    slots.enqueue(queued);
    const started = startAll(slots).map((d) => d.endpointId);
    expect(started).toEqual(["slow", "slow", "fast"]);
    expect(slots.waiting).toBe(2);
  });

  test("an endpoint holding its cap twice over (endpointClaimAhead 2, sending and waiting) is full for claims; its sends stay within the cap; others are not full", () => {
    const slots = createSendSlots({
      concurrency: 8,
      endpointConcurrency: 2,
      endpointClaimAhead: 2,
    });
    slots.enqueue([delivery("slow"), delivery("slow"), delivery("slow")]);
    expect(slots.endpointClaimRoom("slow")).toBe(1);
    expect(slots.fullEndpoints()).toEqual([]);
    slots.enqueue([delivery("slow")]);
    expect(slots.endpointClaimRoom("slow")).toBe(0);
    expect(slots.fullEndpoints()).toEqual(["slow"]);
    expect(slots.endpointClaimRoom("other")).toBe(4);
    expect(startAll(slots)).toHaveLength(2);
    expect(slots.waiting).toBe(2);
  });

  test("a finished send of an endpoint with deliveries queued starts the next of them at once", () => {
    const slots = createSendSlots({
      concurrency: 8,
      endpointConcurrency: 1,
      endpointClaimAhead: 2,
    });
    const queued = [delivery("a"), delivery("a")];
    slots.enqueue(queued);
    const [first] = startAll(slots);
    expect(slots.startNext()).toBeUndefined();
    slots.finished(first as ClaimedDelivery);
    expect(slots.startNext()?.id).toBe(queued[1]?.id);
  });

  test("draining the queue (stop) returns what never started and frees its room", () => {
    const slots = createSendSlots({
      concurrency: 1,
      endpointConcurrency: 1,
      endpointClaimAhead: 2,
    });
    slots.enqueue(["a", "a"].map(delivery));
    const [sending] = startAll(slots);
    expect(slots.endpointClaimRoom("a")).toBe(0);
    const unsent = slots.drainQueue();
    expect(unsent).toHaveLength(1);
    expect(slots.waiting).toBe(0);
    expect(slots.endpointClaimRoom("a")).toBe(1);
    slots.finished(sending as ClaimedDelivery);
    expect(slots.sending).toBe(0);
    expect(slots.claimRoom()).toBe(2);
    expect(slots.endpointClaimRoom("a")).toBe(2);
  });
});
