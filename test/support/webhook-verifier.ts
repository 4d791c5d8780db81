// An independent webhook verifier, written from the spec's receiver rules (section 4) and not
// from the service's code: the tests check what the service sends with it.
import { createHmac, timingSafeEqual } from "node:crypto";

export interface VerifiedWebhook {
  ok: true;
  event: {
    id: string;
    type: string;
    created_at: string;
    api_version: string;
    data: Record<string, unknown>;
  };
}
export type VerifyResult = VerifiedWebhook | { ok: false; reason: string };

function sortedCompact(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedCompact).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${sortedCompact((value as Record<string, unknown>)[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

export function verifyWebhook(input: {
  secret: string;
  headers: Record<string, string>;
  rawBody: string;
  nowSeconds: number;
}): VerifyResult {
  const h = Object.fromEntries(Object.entries(input.headers).map(([k, v]) => [k.toLowerCase(), v]));
  if (h["content-type"] !== "application/json") return { ok: false, reason: "content-type" };
  if (h["user-agent"] !== "Svc-Webhooks/1") return { ok: false, reason: "user-agent" };
  const timestamp = h["svc-webhook-timestamp"] ?? "";
  // Rule 3: all digits, within 300 seconds of now.
  if (!/^\d+$/.test(timestamp)) return { ok: false, reason: "timestamp not digits" };
  if (Math.abs(input.nowSeconds - Number(timestamp)) > 300)
    return { ok: false, reason: "timestamp outside tolerance" };
  // Rules 1 and 2: HMAC over the raw bytes, compared in constant time after a length check.
  const given = h["svc-webhook-signature"] ?? "";
  const expected = `v1=${createHmac("sha256", input.secret).update(`${timestamp}.${input.rawBody}`).digest("hex")}`;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  if (a.length !== b.length || !timingSafeEqual(a, b)) return { ok: false, reason: "signature" };
  const event = JSON.parse(input.rawBody);
  if (sortedCompact(event) !== input.rawBody) return { ok: false, reason: "body not canonical" };
  if (Object.keys(event).sort().join(",") !== "api_version,created_at,data,id,type")
    return { ok: false, reason: "envelope fields" };
  if (event.api_version !== "v1") return { ok: false, reason: "api_version" };
  if (h["svc-webhook-id"] !== event.id)
    return { ok: false, reason: "Svc-Webhook-Id differs from id" };
  return { ok: true, event };
}
