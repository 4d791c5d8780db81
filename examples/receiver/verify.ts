// Verifying a Svc webhook, exactly as the receiver rules say (spec 4;
// docs/contract.md "Verifying a delivery"):
//  1. compute the signature over the raw request bytes (re-serialised JSON will not match);
//  2. compare in constant time, checking the length first;
//  3. reject a timestamp that is not all digits or is more than 300 seconds from now;
//  4. then de-duplicate on the event id (see store.ts: the receiver's inbox).
// Self-contained (node:crypto only) so it can be copied into any TypeScript receiver on Bun or Node.
import { createHmac, timingSafeEqual } from "node:crypto";

export const signatureToleranceSeconds = 300;

/** The `data` of each event type (spec §6): identifiers only, never amounts or names. */
export interface SvcEventData {
  "account.transactions.available": { account_id: string; fetched_at: string; new_count: number };
  "account.balance.updated": { account_id: string; fetched_at: string };
  "connection.status.changed": {
    connection_id: string;
    status:
      | "linked"
      | "awaiting_auth"
      | "rejected"
      | "suspended"
      | "expired"
      | "error"
      | "initiated";
    account_ids: string[];
  };
  "webhook.verify": { code: string; endpoint_id: string };
  "webhook.test": { endpoint_id: string };
}

export type SvcEventType = keyof SvcEventData;

/** The envelope (spec §2): exactly these five fields; `switch (event.type)` narrows `data`. */
export type SvcEvent = {
  [T in SvcEventType]: {
    id: string;
    type: T;
    created_at: string;
    api_version: "v1";
    data: SvcEventData[T];
  };
}[SvcEventType];

export type VerifyFailure =
  | "missing_header"
  | "bad_timestamp"
  | "stale_timestamp"
  | "bad_signature_format"
  | "signature_mismatch"
  | "bad_body"
  | "id_mismatch";

export type VerifyResult = { ok: true; event: SvcEvent } | { ok: false; reason: VerifyFailure };

export interface VerifyInput {
  /** The request body exactly as received: bytes or the undecoded text. */
  rawBody: Uint8Array | string;
  /** Request headers (a Headers object or a plain lower-case map). */
  headers: Headers | Record<string, string | undefined>;
  /** The endpoint's signing secret, `whsec_...`, exactly as the portal showed it. */
  secret: string;
  /** Current time in unix seconds (injectable for tests). */
  nowSeconds?: number;
  toleranceSeconds?: number;
}

function header(headers: VerifyInput["headers"], name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  return headers[name.toLowerCase()] ?? headers[name];
}

/** The signature Svc sends: `v1=` + lowercase hex HMAC-SHA256 of `{timestamp}.{raw body}`. */
export function computeSignature(
  secret: string,
  timestamp: string,
  rawBody: Uint8Array | string,
): string {
  const mac = createHmac("sha256", secret);
  mac.update(`${timestamp}.`);
  mac.update(rawBody);
  return `v1=${mac.digest("hex")}`;
}

export function verifyWebhook(input: VerifyInput): VerifyResult {
  // A configuration mistake, not a bad delivery: say so loudly instead of rejecting everything.
  if (!input.secret.startsWith("whsec_")) {
    throw new Error("the signing secret is the whole string Svc showed, starting with whsec_");
  }
  const timestamp = header(input.headers, "Svc-Webhook-Timestamp");
  const signature = header(input.headers, "Svc-Webhook-Signature");
  const webhookId = header(input.headers, "Svc-Webhook-Id");
  if (timestamp === undefined || signature === undefined || webhookId === undefined) {
    return { ok: false, reason: "missing_header" };
  }
  if (!/^\d{1,15}$/.test(timestamp)) return { ok: false, reason: "bad_timestamp" };
  const now = input.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - Number(timestamp)) > (input.toleranceSeconds ?? signatureToleranceSeconds)) {
    return { ok: false, reason: "stale_timestamp" };
  }
  if (!/^v1=[0-9a-f]{64}$/.test(signature)) return { ok: false, reason: "bad_signature_format" };
  const expected = Buffer.from(computeSignature(input.secret, timestamp, input.rawBody));
  const received = Buffer.from(signature);
  // timingSafeEqual throws on unequal lengths, so the length is checked first.
  if (expected.length !== received.length || !timingSafeEqual(expected, received)) {
    return { ok: false, reason: "signature_mismatch" };
  }
  let event: SvcEvent;
  try {
    const text =
      typeof input.rawBody === "string" ? input.rawBody : new TextDecoder().decode(input.rawBody);
    event = JSON.parse(text) as SvcEvent;
  } catch {
    return { ok: false, reason: "bad_body" };
  }
  if (
    typeof event !== "object" ||
    event === null ||
    typeof event.id !== "string" ||
    typeof event.type !== "string" ||
    typeof event.data !== "object" ||
    event.data === null
  ) {
    return { ok: false, reason: "bad_body" };
  }
  if (event.id !== webhookId) return { ok: false, reason: "id_mismatch" };
  return { ok: true, event };
}
