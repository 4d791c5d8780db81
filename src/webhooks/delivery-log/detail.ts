// One delivery in full for debugging: the exact body that was
// signed and sent (a webhook.verify code stays masked: the events table keeps it masked, as
// `svc events list` shows it), each attempt with the three Svc-Webhook-* headers it carried,
// and whether Resend (resend.ts) or Retry now would be accepted right now.
//
// The signature is the one stored with the attempt, not recomputed: a rotation changes the
// secret of later attempts, and a webhook.verify's signature covers the unmasked code. The
// timestamp is recomputed exactly as delivery/signing.ts made it (whole seconds of the attempt's
// start).
import { and, asc, eq } from "drizzle-orm";
import type { Config } from "../../config/config.ts";
import type { Clock } from "../../core/clock.ts";
import { dayMs } from "../../core/dates.ts";
import { ApiError } from "../../core/errors.ts";
import { isUuid } from "../../core/ids.ts";
import { type Db, first } from "../../db/store.ts";
import { accountEventTypes } from "../events/types.ts";
import { type AttemptView, attemptView, type DeliveryView, getDelivery } from "./log.ts";

/** The delivery headers an attempt carried; the secret itself is never shown. */
export interface SentHeaders {
  "Svc-Webhook-Id": string;
  "Svc-Webhook-Timestamp": string;
  "Svc-Webhook-Signature": string;
}

export interface AttemptDetail extends AttemptView {
  /**
   * null when no request left (DNS failure, blocked address), for webhook.verify sends (the
   * signature would reveal the code to whoever holds the secret) and for attempts made before
   * signatures were recorded.
   */
  requestHeaders: SentHeaders | null;
}

export interface DeliveryDetail extends Omit<DeliveryView, "attempts"> {
  /** The exact signed bytes as stored (webhook.verify: the code masked). */
  body: string;
  attempts: AttemptDetail[];
  /**
   * Resend would be accepted now, rate limit aside (account event, in retention, endpoint active
   * and verified).
   */
  canResend: boolean;
  /** Retry now would be accepted now (pending and no attempt under way). */
  canRetryNow: boolean;
}

export interface DeliveryDetailRef {
  deliveryId: string;
  endpointId: string;
  serviceAccountId: string;
}

export async function getDeliveryDetail(
  deps: { db: Db; clock: Clock; config: Pick<Config, "retentionDays"> },
  ref: DeliveryDetailRef,
): Promise<DeliveryDetail> {
  const { db, clock } = deps;
  const notFound = new ApiError("not_found", `No delivery ${ref.deliveryId}.`);
  if (!isUuid(ref.deliveryId) || !isUuid(ref.endpointId)) throw notFound;
  const { deliveries, deliveryAttempts, events, webhookEndpoints } = db.t;
  // Scoped by account and endpoint in one query: another account's delivery is not found.
  const row = await first(
    db
      .select({
        body: events.body,
        eventCreatedAt: events.createdAt,
        endpointStatus: webhookEndpoints.status,
        endpointVerifiedAt: webhookEndpoints.verifiedAt,
      })
      .from(deliveries)
      .innerJoin(events, eq(events.id, deliveries.eventId))
      .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, deliveries.endpointId))
      .where(
        and(
          eq(deliveries.id, ref.deliveryId),
          eq(deliveries.endpointId, ref.endpointId),
          eq(events.serviceAccountId, ref.serviceAccountId),
          eq(webhookEndpoints.serviceAccountId, ref.serviceAccountId),
        ),
      ),
  );
  const delivery = row ? await getDelivery(db, ref.deliveryId) : undefined;
  if (!row || !delivery) throw notFound;
  const attemptRows = await db
    .select()
    .from(deliveryAttempts)
    .where(eq(deliveryAttempts.deliveryId, delivery.id))
    .orderBy(asc(deliveryAttempts.attemptNumber), asc(deliveryAttempts.id));
  const now = clock.now().getTime();
  const { attempts: _views, ...rest } = delivery;
  return {
    ...rest,
    body: row.body,
    attempts: attemptRows.map((a) => ({
      ...attemptView(a),
      requestHeaders:
        a.signature === null
          ? null
          : {
              "Svc-Webhook-Id": delivery.eventId,
              "Svc-Webhook-Timestamp": String(Math.floor(a.startedAt.getTime() / 1000)),
              "Svc-Webhook-Signature": a.signature,
            },
    })),
    canResend:
      (accountEventTypes as readonly string[]).includes(delivery.eventType) &&
      row.endpointStatus === "active" &&
      row.endpointVerifiedAt !== null &&
      row.eventCreatedAt.getTime() >= now - deps.config.retentionDays * dayMs,
    canRetryNow:
      delivery.status === "pending" &&
      (delivery.leaseExpiresAt === null || new Date(delivery.leaseExpiresAt).getTime() <= now),
  };
}
