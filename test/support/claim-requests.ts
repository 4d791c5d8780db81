// Claim requests and attempt outcomes as the dispatcher makes them, for tests that drive a claim
// or a turn by hand.
import type { AttemptOutcome } from "../../src/webhooks/delivery/attempt-outcome.ts";
import type { ClaimedDelivery } from "../../src/webhooks/delivery/claimed-delivery.ts";
import type { ClaimRequest } from "../../src/webhooks/delivery/claims.ts";
import { deliveryLeaseMs } from "../../src/webhooks/delivery/dispatcher.ts";

/** Up to `limit` deliveries at `now`, each endpoint with room for `limit`, its cap `endpointCap`. */
export function claimRequestAt(now: Date, limit: number, endpointCap: number): ClaimRequest {
  return {
    now,
    leaseUntil: new Date(now.getTime() + deliveryLeaseMs),
    limit,
    endpointRoom: () => limit,
    fullEndpoints: [],
    endpointCap,
  };
}

/** A 200 answer to `delivery`'s attempt, started at `startedAt`. */
export function succeededAttempt(delivery: ClaimedDelivery, startedAt: Date): AttemptOutcome {
  return {
    delivery,
    result: {
      startedAt,
      durationMs: 3,
      ok: true,
      statusCode: 200,
      errorClass: null,
      errorMessage: null,
    },
  };
}
