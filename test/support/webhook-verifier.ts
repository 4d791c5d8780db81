// What the webhook tests check of every delivery the service sends. The spec's receiver rules
// (section 4) are checked by the receiver kit's verifier (examples/receiver/verify.ts), which is
// written from the spec and not from the service's code: one independent implementation of the
// rules, shared by the kit's users and these tests. On top of it, what a receiver need not check
// but the service must send: Content-Type, User-Agent, and a canonical body (sorted keys, no
// spaces) holding exactly the five envelope fields with api_version v1.
import { type SvcEvent, verifyWebhook as verifyWithKit } from "../../examples/receiver/verify.ts";

export type VerifyResult = { ok: true; event: SvcEvent } | { ok: false; reason: string };

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
  const verified = verifyWithKit({
    rawBody: input.rawBody,
    headers: h,
    secret: input.secret,
    nowSeconds: input.nowSeconds,
  });
  if (!verified.ok) return verified;
  if (sortedCompact(verified.event) !== input.rawBody) {
    return { ok: false, reason: "body not canonical" };
  }
  if (Object.keys(verified.event).sort().join(",") !== "api_version,created_at,data,id,type") {
    return { ok: false, reason: "envelope fields" };
  }
  if (verified.event.api_version !== "v1") return { ok: false, reason: "api_version" };
  return verified;
}
