// The kit's verify.ts is for any TypeScript receiver, not only Bun: bundled for Node.js, it
// verifies a genuine delivery and rejects a tampered one under the `node` on this machine (the
// README's quick start assumes Node.js is installed).
import { expect, test } from "bun:test";
import { join } from "node:path";
import { runBinary } from "../support/binary.ts";
import { makeTempDir } from "../support/temp.ts";

test("verify.ts runs on Node.js: a genuine delivery verifies, a tampered body does not", async () => {
  const dir = makeTempDir("svc-kit-node");
  const built = await Bun.build({
    entrypoints: [join(import.meta.dir, "../../examples/receiver/verify.ts")],
    target: "node",
    format: "esm",
    outdir: dir,
    naming: "verify.mjs",
  });
  expect(built.success).toBe(true);
  const script = `
    import { computeSignature, verifyWebhook } from ${JSON.stringify(join(dir, "verify.mjs"))};
    const body = '{"api_version":"v1","created_at":"2026-01-15T09:00:00.000Z","data":{"endpoint_id":"5b0c1f7e-8f2a-4d59-9a51-0d6f3c2b1a90"},"id":"0c8a4a8e-3a5e-4a57-9d4e-0d8f6a1b2c3d","type":"webhook.test"}';
    const ts = String(Math.floor(Date.now() / 1000));
    const headers = new Headers({
      "Svc-Webhook-Id": "0c8a4a8e-3a5e-4a57-9d4e-0d8f6a1b2c3d",
      "Svc-Webhook-Timestamp": ts,
      "Svc-Webhook-Signature": computeSignature("whsec_node", ts, body),
    });
    const genuine = verifyWebhook({ rawBody: new TextEncoder().encode(body), headers, secret: "whsec_node" });
    const tampered = verifyWebhook({ rawBody: body.replace("test", "tesT"), headers, secret: "whsec_node" });
    console.log(JSON.stringify({ genuine: genuine.ok, tampered }));
  `;
  const { stdout, stderr, code } = await runBinary(
    "node",
    ["--input-type=module", "-e", script],
    dir,
  );
  expect(stderr).toBe("");
  expect(code).toBe(0);
  expect(JSON.parse(stdout)).toEqual({
    genuine: true,
    tampered: { ok: false, reason: "signature_mismatch" },
  });
});
