// The delivery signature (spec 4 "Webhook delivery"): lowercase hex HMAC-SHA256 of
// "{timestamp}.{body}" keyed with the whole `whsec_...` secret as UTF-8, behind "v1=". Held to
// node:crypto's HMAC, an implementation the signing code does not use.
import { describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { deliveryHeaders, signatureFor } from "../../src/webhooks/delivery/signing.ts";

describe("delivery signatures", () => {
  test("v1= and the lowercase hex HMAC-SHA256 of timestamp, a dot and the body, keyed with the whole secret string", () => {
    const secret = "whsec_Rk9vYmFyLXNpZ25pbmctc2VjcmV0LWZvci10ZXN0cy0xMjM";
    // Multi-byte text in the body: the message is hashed as UTF-8.
    const body = '{"id":"evt_1","data":{"name":"Café Zürich – 5 €"}}';
    const expected = createHmac("sha256", Buffer.from(secret, "utf8"))
      .update(Buffer.from(`1796161899.${body}`, "utf8"))
      .digest("hex");
    expect(signatureFor(secret, "1796161899", body)).toBe(`v1=${expected}`);
    expect(expected).toMatch(/^[0-9a-f]{64}$/);
  });

  test("the headers carry the attempt's time in whole seconds and the signature over it", () => {
    const secret = "whsec_another-secret";
    const body = '{"id":"evt_2"}';
    const headers = deliveryHeaders({
      eventId: "evt_2",
      body,
      secret,
      attemptAt: new Date(1_796_161_899_999),
    });
    expect(headers["Svc-Webhook-Timestamp"]).toBe("1796161899");
    expect(headers["Svc-Webhook-Signature"]).toBe(
      `v1=${createHmac("sha256", secret).update(`1796161899.${body}`).digest("hex")}`,
    );
  });
});
