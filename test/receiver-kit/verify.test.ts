import { describe, expect, test } from "bun:test";
import { computeSignature, verifyWebhook } from "../../examples/receiver/verify.ts";

const secret = "whsec_test-secret-value";
const body =
  '{"api_version":"v1","created_at":"2026-03-01T12:00:00.000Z","data":{"endpoint_id":"5b0c1f7e-8f2a-4d59-9a51-0d6f3c2b1a90"},"id":"0c8a4a8e-3a5e-4a57-9d4e-0d8f6a1b2c3d","type":"webhook.test"}';
const id = "0c8a4a8e-3a5e-4a57-9d4e-0d8f6a1b2c3d";
const now = 1_772_366_400;

function headers(overrides: Record<string, string | undefined> = {}, timestamp = String(now)) {
  return {
    "svc-webhook-id": id,
    "svc-webhook-timestamp": timestamp,
    "svc-webhook-signature": computeSignature(secret, timestamp, body),
    ...overrides,
  };
}

describe("receiver kit: verifyWebhook follows the spec's receiver rules", () => {
  test("a genuine delivery verifies and yields the event", () => {
    const result = verifyWebhook({ rawBody: body, headers: headers(), secret, nowSeconds: now });
    expect(result).toEqual({ ok: true, event: JSON.parse(body) });
  });

  test("rule 1: the signature is over the raw bytes; re-serialised JSON does not match", () => {
    const reserialised = JSON.stringify(JSON.parse(body), null, 1);
    expect(
      verifyWebhook({ rawBody: reserialised, headers: headers(), secret, nowSeconds: now }),
    ).toEqual({
      ok: false,
      reason: "signature_mismatch",
    });
  });

  test("a tampered body is rejected", () => {
    const tampered = body.replace("webhook.test", "webhook.tesT");
    expect(
      verifyWebhook({ rawBody: tampered, headers: headers(), secret, nowSeconds: now }).ok,
    ).toBe(false);
  });

  test("a wrong secret is rejected", () => {
    expect(
      verifyWebhook({ rawBody: body, headers: headers(), secret: "whsec_other", nowSeconds: now }),
    ).toEqual({
      ok: false,
      reason: "signature_mismatch",
    });
  });

  test("rule 2: a signature of the wrong length is rejected before comparing", () => {
    expect(
      verifyWebhook({
        rawBody: body,
        headers: headers({ "svc-webhook-signature": "v1=abc" }),
        secret,
        nowSeconds: now,
      }),
    ).toEqual({
      ok: false,
      reason: "bad_signature_format",
    });
  });

  test.each([["12a"], ["-5"], ["1.5"], [" 1772366400"], [""]])(
    "rule 3: a timestamp that is not all digits (%p) is rejected",
    (timestamp) => {
      const result = verifyWebhook({
        rawBody: body,
        headers: headers({}, timestamp),
        secret,
        nowSeconds: now,
      });
      expect(result).toEqual({ ok: false, reason: "bad_timestamp" });
    },
  );

  test("rule 3: 300 seconds either way is accepted, 301 is rejected (old and future)", () => {
    for (const offset of [-300, 300]) {
      const ts = String(now + offset);
      expect(
        verifyWebhook({ rawBody: body, headers: headers({}, ts), secret, nowSeconds: now }).ok,
      ).toBe(true);
    }
    for (const offset of [-301, 301]) {
      const ts = String(now + offset);
      expect(
        verifyWebhook({ rawBody: body, headers: headers({}, ts), secret, nowSeconds: now }),
      ).toEqual({
        ok: false,
        reason: "stale_timestamp",
      });
    }
  });

  test("a replay with a fresh timestamp but the old signature is rejected", () => {
    const old = headers({}, String(now - 60));
    const replay = { ...old, "svc-webhook-timestamp": String(now) };
    expect(verifyWebhook({ rawBody: body, headers: replay, secret, nowSeconds: now }).ok).toBe(
      false,
    );
  });

  test("missing headers and an id that differs from the body's are rejected", () => {
    expect(
      verifyWebhook({
        rawBody: body,
        headers: headers({ "svc-webhook-id": undefined }),
        secret,
        nowSeconds: now,
      }).ok,
    ).toBe(false);
    expect(
      verifyWebhook({
        rawBody: body,
        headers: headers({ "svc-webhook-id": "other" }),
        secret,
        nowSeconds: now,
      }),
    ).toEqual({ ok: false, reason: "id_mismatch" });
  });

  test("a secret that is not the whole whsec_ string is a configuration error, not a rejection", () => {
    expect(() =>
      verifyWebhook({
        rawBody: body,
        headers: headers(),
        secret: secret.slice("whsec_".length),
        nowSeconds: now,
      }),
    ).toThrow(/whsec_/);
  });

  test("works with a Headers object and with raw bytes", () => {
    const result = verifyWebhook({
      rawBody: new TextEncoder().encode(body),
      headers: new Headers(headers()),
      secret,
      nowSeconds: now,
    });
    expect(result.ok).toBe(true);
  });
});
