// One delivery attempt on the network (sending): the signing secret derived from the endpoint's
// current salt, so a rotation applies to the very next attempt, retries included (spec 3); a
// sender that throws is an attempt that failed to connect. Never rejects.
import type { Clock } from "../../core/clock.ts";
import type { ClaimedDelivery } from "./claimed-delivery.ts";
import type { Sender, SendResult } from "./sender.ts";

export function sendAttempt(
  deps: {
    sender: Sender;
    /** The signing secret of an endpoint for a salt (secrets.ts: derived or remembered). */
    signingSecret: (endpointId: string, salt: string) => string;
    clock: Clock;
  },
  delivery: ClaimedDelivery,
): Promise<SendResult> {
  const secret = deps.signingSecret(delivery.endpointId, delivery.secretSalt);
  return deps.sender
    .send({ url: delivery.url, eventId: delivery.eventId, body: delivery.body, secret })
    .catch(
      (error: unknown): SendResult => ({
        startedAt: deps.clock.now(),
        durationMs: 0,
        ok: false,
        statusCode: null,
        errorClass: "connect",
        errorMessage: error instanceof Error ? error.message : String(error),
      }),
    );
}
