// Spec 6 "Delivery, retries and disabling": first attempt immediately, then retries 1 min,
// 5 min, 30 min, 2 h, 12 h and 24 h after the previous attempt; after the sixth retry fails the
// event is dropped for that endpoint. Spec 3/8: 20 consecutive failures disable the endpoint.

export const retryDelaysMs = [
  60_000,
  5 * 60_000,
  30 * 60_000,
  2 * 60 * 60_000,
  12 * 60 * 60_000,
  24 * 60 * 60_000,
] as const;

export const failuresBeforeDisabling = 20;

/**
 * When to try again after attempt number `attemptNumber` (1 = first) failed, measured from
 * when that attempt was made; null when it was the last one (the delivery is dropped).
 */
export function nextRetryAt(attemptNumber: number, attemptStartedAt: Date): Date | null {
  const delay = retryDelaysMs[attemptNumber - 1];
  return delay === undefined ? null : new Date(attemptStartedAt.getTime() + delay);
}
