// The delivery request's headers (spec 4 "Webhook delivery"): the signature is lowercase hex
// HMAC-SHA256 of "{timestamp}.{body}" keyed with the endpoint's signing secret (the whole
// `whsec_...` string as UTF-8), computed fresh for every attempt. Bun's own hasher gives the
// same bytes as node:crypto's createHmac at about a third of its cost per attempt (0.8-1.1 against
// 2.1-3.0 µs for a 240-byte body, BENCHMARKS.md 2026-12-01).

export const webhookUserAgent = "Svc-Webhooks/1";

export function signatureFor(secret: string, timestamp: string, body: string): string {
  return `v1=${new Bun.CryptoHasher("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`;
}

/** Exactly the spec's headers (the HTTP client adds Host, Content-Length and Connection). */
export function deliveryHeaders(input: {
  eventId: string;
  body: string;
  secret: string;
  attemptAt: Date;
}): Record<string, string> {
  const timestamp = String(Math.floor(input.attemptAt.getTime() / 1000));
  return {
    "Content-Type": "application/json",
    "User-Agent": webhookUserAgent,
    "Svc-Webhook-Id": input.eventId,
    "Svc-Webhook-Timestamp": timestamp,
    "Svc-Webhook-Signature": signatureFor(input.secret, timestamp, input.body),
  };
}
