// The receiver kit's Python verifier (examples/receiver/python/svc_webhooks.py) against the real
// delivery engine, like the TypeScript one (engine.test.ts): `startService` runs the real server
// and dispatcher, a real HTTPS receiver on loopback (the tests' own CA) captures the raw bytes
// and headers of genuine deliveries, before and after a secret rotation. Each capture, and
// tampered, re-serialised, re-timed and mis-keyed copies of one, are given to python3 and to
// the TypeScript verifier: both must reach the verdict the spec's rules demand (spec 4).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Server } from "bun";
import { computeSignature, verifyWebhook } from "../../examples/receiver/verify.ts";
import { type RunningService, startService } from "../../src/server/runtime.ts";
import { sendVerificationCode, verifyEndpoint } from "../../src/webhooks/delivery/verification.ts";
import {
  registerEndpoint,
  rotateEndpointSecret,
} from "../../src/webhooks/endpoints/registration.ts";
import { waitUntil } from "../support/wait.ts";
import {
  createWebhookSetup,
  raiseBalanceEvent,
  testCertificates,
  type WebhookSetup,
} from "../support/webhooks.ts";

interface Delivery {
  /** Header names lower-case, as received. */
  headers: Record<string, string>;
  body: Uint8Array;
  type: string;
  id: string;
}

interface Case {
  name: string;
  secret: string;
  headers: Record<string, string>;
  body: Uint8Array;
  now: number;
  /** "ok:<event id>", a reason word, or "config_error". */
  expected: string;
}

let setup: WebhookSetup;
let running: RunningService;
let https: Server<undefined>;
const captured: Delivery[] = [];
let oldSecret: string;
let newSecret: string;
let beforeRotation: Delivery[];
let afterRotation: Delivery[];

async function captureBalanceEvent(): Promise<Delivery> {
  const count = captured.length;
  await raiseBalanceEvent(setup);
  setup.services.outbox.notify();
  await waitUntil(async () => captured.length > count, "the delivery to arrive");
  return captured[count] as Delivery;
}

beforeAll(async () => {
  const { cert } = await testCertificates();
  setup = await createWebhookSetup({ config: { host: "127.0.0.1", port: 0 } });
  running = await startService(setup.services);
  https = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    tls: { cert: Bun.file(cert.certFile), key: Bun.file(cert.keyFile) },
    async fetch(request) {
      const body = new Uint8Array(await request.arrayBuffer());
      const event = JSON.parse(new TextDecoder().decode(body)) as { id: string; type: string };
      captured.push({ headers: Object.fromEntries(request.headers), body, ...event });
      return new Response(null, { status: 200 });
    },
  });
  const registered = await registerEndpoint(setup.ctx, {
    serviceAccountId: setup.accountId,
    url: `https://127.0.0.1:${https.port}/hooks`,
  });
  const endpointId = registered.endpoint.id;
  oldSecret = registered.signingSecret;
  const sent = await sendVerificationCode(setup.ctx, { endpointId });
  if (!sent.ok) throw new Error(`verification send failed: ${sent.error}`);
  const verify = captured.find((d) => d.type === "webhook.verify") as Delivery;
  const code = (JSON.parse(new TextDecoder().decode(verify.body)) as { data: { code: string } })
    .data.code;
  await verifyEndpoint(setup.ctx, { endpointId }, code);
  await captureBalanceEvent();
  setup.clock.advance(60_000);
  await captureBalanceEvent();
  beforeRotation = [...captured];
  newSecret = (await rotateEndpointSecret(setup.services, { endpointId })).signingSecret;
  setup.clock.advance(60_000);
  afterRotation = [await captureBalanceEvent()];
  // Real sends through the dispatcher: room for a loaded machine.
}, 60_000);

afterAll(async () => {
  await https?.stop(true);
  await running?.stop();
  await setup?.close();
});

const timestampOf = (delivery: Delivery) => Number(delivery.headers["svc-webhook-timestamp"]);

/** The genuine case for a delivery, and a variant of it. */
function genuine(name: string, delivery: Delivery, secret: string): Case {
  return {
    name,
    secret,
    headers: { ...delivery.headers },
    body: delivery.body,
    now: timestampOf(delivery),
    expected: `ok:${delivery.id}`,
  };
}

function variant(base: Case, name: string, changes: Partial<Case>): Case {
  return { ...base, name, ...changes };
}

const arabicIndic = (digits: string) =>
  [...digits].map((d) => String.fromCharCode(0x0660 + Number(d))).join("");

function cases(): Case[] {
  const all: Case[] = [];
  for (const delivery of beforeRotation) {
    all.push(genuine(`genuine ${delivery.type} ${delivery.id}`, delivery, oldSecret));
  }
  for (const delivery of afterRotation) {
    all.push(genuine(`genuine after rotation ${delivery.id}`, delivery, newSecret));
  }
  const before = genuine("balance event", beforeRotation.at(-1) as Delivery, oldSecret);
  const after = genuine("rotated", afterRotation[0] as Delivery, newSecret);
  const ts = String(before.now);
  const withTimestamp = (value: string) => ({ ...before.headers, "svc-webhook-timestamp": value });
  const tampered = new Uint8Array(before.body);
  tampered[tampered.length - 2] = (tampered[tampered.length - 2] as number) ^ 0x01;
  const reserialised = new TextEncoder().encode(
    JSON.stringify(JSON.parse(new TextDecoder().decode(before.body)), null, 2),
  );
  const { "svc-webhook-signature": _dropped, ...unsigned } = before.headers;
  all.push(
    variant(before, "a tampered byte", { body: tampered, expected: "signature_mismatch" }),
    variant(before, "re-serialised JSON", { body: reserialised, expected: "signature_mismatch" }),
    variant(before, "a wrong secret", {
      secret: `whsec_${"A".repeat(43)}`,
      expected: "signature_mismatch",
    }),
    variant(before, "the secret without its whsec_ prefix", {
      secret: oldSecret.slice("whsec_".length),
      expected: "config_error",
    }),
    variant(before, "301 s after the timestamp", {
      now: before.now + 301,
      expected: "stale_timestamp",
    }),
    variant(before, "301 s before the timestamp", {
      now: before.now - 301,
      expected: "stale_timestamp",
    }),
    variant(before, "300 s after", { now: before.now + 300 }),
    variant(before, "300 s before", { now: before.now - 300 }),
    variant(before, "299 s after", { now: before.now + 299 }),
    variant(before, "299 s before", { now: before.now - 299 }),
    ...(
      [
        ["-5", "-5"],
        ["1.7e9", "1.7e9"],
        ["a leading space", ` ${ts}`],
        ["a trailing newline", `${ts}\n`],
        ["Arabic-Indic digits", arabicIndic(ts)],
        ["a superscript two", `${ts.slice(0, -1)}\u00b2`],
        ["empty", ""],
        ["a sign", `+${ts}`],
        ["too many digits", "1".repeat(16)],
      ] as const
    ).map(([label, value]) =>
      variant(before, `timestamp: ${label}`, {
        headers: withTimestamp(value),
        expected: "bad_timestamp",
      }),
    ),
    variant(before, "a fresh timestamp on the old signature", {
      headers: withTimestamp(String(before.now + 60)),
      now: before.now + 60,
      expected: "signature_mismatch",
    }),
    variant(before, "no signature header", { headers: unsigned, expected: "missing_header" }),
    variant(before, "two signatures in the header", {
      headers: {
        ...before.headers,
        "svc-webhook-signature": `${computeSignature(newSecret, ts, before.body)},${before.headers["svc-webhook-signature"]}`,
      },
      expected: "bad_signature_format",
    }),
    variant(before, "an upper-case signature", {
      headers: {
        ...before.headers,
        "svc-webhook-signature": (before.headers["svc-webhook-signature"] as string).toUpperCase(),
      },
      expected: "bad_signature_format",
    }),
    variant(before, "another event id in the header", {
      headers: { ...before.headers, "svc-webhook-id": crypto.randomUUID() },
      expected: "id_mismatch",
    }),
    variant(before, "signed before the rotation, checked with the new secret", {
      secret: newSecret,
      expected: "signature_mismatch",
    }),
    variant(after, "signed after the rotation, checked with the old secret", {
      secret: oldSecret,
      expected: "signature_mismatch",
    }),
  );
  return all;
}

function typescriptVerdict(c: Case): string {
  try {
    const result = verifyWebhook({
      rawBody: c.body,
      headers: c.headers,
      secret: c.secret,
      nowSeconds: c.now,
    });
    return result.ok ? `ok:${result.event.id}` : result.reason;
  } catch {
    return "config_error";
  }
}

async function pythonVerdicts(all: Case[]): Promise<string[]> {
  const input = JSON.stringify(
    all.map((c) => ({
      secret: c.secret,
      headers: c.headers,
      body_base64: Buffer.from(c.body).toString("base64"),
      now: c.now,
    })),
  );
  const python = Bun.spawn(["python3", join(import.meta.dir, "verify_cases.py")], {
    stdin: new TextEncoder().encode(input),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(python.stdout).text(),
    new Response(python.stderr).text(),
    python.exited,
  ]);
  if (code !== 0) throw new Error(`python3 failed (${code}): ${stderr}`);
  return JSON.parse(stdout) as string[];
}

describe("the Python verifier on real deliveries", () => {
  test("the engine delivered webhook.verify and balance events, signed with the secret of the moment", () => {
    expect(beforeRotation.map((d) => d.type).sort()).toEqual([
      "account.balance.updated",
      "account.balance.updated",
      "webhook.verify",
    ]);
    expect(afterRotation.map((d) => d.type)).toEqual(["account.balance.updated"]);
    expect(newSecret).not.toBe(oldSecret);
  });

  test("every case gets the verdict the spec's rules demand, from Python and TypeScript alike", async () => {
    const all = cases();
    const python = await pythonVerdicts(all);
    const rows = all.map((c, i) => ({
      name: c.name,
      expected: c.expected,
      python: python[i],
      typescript: typescriptVerdict(c),
    }));
    expect(rows).toEqual(
      all.map((c) => ({
        name: c.name,
        expected: c.expected,
        python: c.expected,
        typescript: c.expected,
      })),
    );
  }, 30_000);
});

describe("the Python verifier's own behaviour", () => {
  test("Title-Case header names, str bodies and the default clock are accepted", async () => {
    const delivery = afterRotation[0] as Delivery;
    const script = [
      "import json, sys",
      `sys.path.insert(0, ${JSON.stringify(join(import.meta.dir, "../../examples/receiver/python"))})`,
      "from svc_webhooks import verify, WebhookVerificationError",
      "case = json.load(sys.stdin)",
      "headers = {k.title(): v for k, v in case['headers'].items()}",
      "event = verify(case['secret'], headers, case['body'], now=case['now'])",
      "try:",
      "    verify(case['secret'], headers, case['body'])",
      "    clock = 'accepted'",
      "except WebhookVerificationError as error:",
      "    clock = error.reason",
      "print(json.dumps([event['id'], clock]))",
    ].join("\n");
    const python = Bun.spawn(["python3", "-c", script], {
      stdin: new TextEncoder().encode(
        JSON.stringify({
          secret: newSecret,
          headers: delivery.headers,
          body: new TextDecoder().decode(delivery.body),
          now: timestampOf(delivery),
        }),
      ),
      stdout: "pipe",
      stderr: "pipe",
    });
    const output = await new Response(python.stdout).text();
    expect(await python.exited).toBe(0);
    // The fake clock of the engine is far from the real one: the system clock finds it stale.
    const stale = Math.abs(Date.now() / 1000 - timestampOf(delivery)) > 300;
    expect(JSON.parse(output)).toEqual([delivery.id, stale ? "stale_timestamp" : "accepted"]);
  }, 30_000);
});
