// The sender against real HTTPS receivers on loopback, each property it promises
// (spec 4, docs/security.md "Webhooks: the SSRF guard") proven before the dispatcher relies on it,
// over both transports: Bun's fetch (the default) and node:https (a bound source address, or a
// proxy in the environment).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { createServer as createTcpServer, type Server as TcpServer } from "node:net";
import { createServer as createTlsServer } from "node:tls";
import { ConfigError } from "../../src/config/config.ts";
import { systemClock } from "../../src/core/clock.ts";
import { createLogger } from "../../src/log/log.ts";
import type { Resolver } from "../../src/net/resolver.ts";
import { fetchRequestsAtOnce } from "../../src/webhooks/delivery/fetch-exchange.ts";
import {
  createSender,
  deliveryTimeoutMs,
  type Sender,
  type SenderOptions,
} from "../../src/webhooks/delivery/sender.ts";
import { buildEvent } from "../../src/webhooks/events/write.ts";
import { freePort } from "../support/binary.ts";
import { createFakeClock } from "../support/fake-clock.ts";
import { type CertFiles, createTestPki, loopbackNames, type TestPki } from "../support/pki.ts";
import { neverAnswer, type Receiver, startReceiver } from "../support/receiver.ts";
import { makeTempDir } from "../support/temp.ts";
import { verifyWebhook } from "../support/webhook-verifier.ts";

const endpointId = "0e9f1c2a-8d4b-4c6e-9f10-2b3c4d5e6f70";
const secret = "whsec_test-secret-for-the-sender";

let pki: TestPki;
let good: CertFiles;
let receiver: Receiver;
const cleanup: (() => unknown)[] = [];

beforeAll(async () => {
  pki = await createTestPki();
  good = await pki.issue(loopbackNames);
  receiver = startReceiver(good);
  cleanup.push(() => receiver.stop());
});
afterAll(async () => {
  for (const fn of cleanup.reverse()) await fn();
});

type Transport = Sender["transport"];
/** The transport the tests below run over (each block runs once per transport). */
let transport: Transport = "fetch";
/** A proxy setting makes the sender choose node:https (fetch would send through it). */
const proxyEnvironment = { HTTPS_PROXY: "http://127.0.0.1:9" };

function sender(options: Partial<SenderOptions> = {}) {
  const s = createSender({
    clock: systemClock,
    allowPrivate: true,
    caFile: pki.caFile,
    environment: transport === "fetch" ? {} : proxyEnvironment,
    ...options,
  });
  cleanup.push(() => s.close());
  return s;
}

function sample() {
  return buildEvent("webhook.test", { endpoint_id: endpointId }, new Date());
}

/** Listens on a free loopback port (closed after the file); the port. */
async function listening(server: TcpServer): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanup.push(() => new Promise((resolve) => server.close(resolve)));
  return (server.address() as { port: number }).port;
}

async function send(s: ReturnType<typeof sender>, url: string) {
  const { envelope, body } = sample();
  return s.send({ url, eventId: envelope.id, body, secret });
}

for (const each of ["fetch", "node:https"] as const) {
  describe(`over ${each}`, () => {
    beforeAll(() => {
      transport = each;
    });

    test(`the sender chooses ${each} here`, () => {
      expect(sender().transport).toBe(each);
    });

    describe("sender: the request (spec 4 'Webhook delivery')", () => {
      test("POSTs the exact canonical body with exactly the spec's headers, verified by an independent receiver", async () => {
        const s = sender();
        const { envelope, body } = sample();
        const before = receiver.requests.length;
        const result = await s.send({
          url: receiver.url("/in?x=1"),
          eventId: envelope.id,
          body,
          secret,
        });
        expect(result).toMatchObject({ ok: true, statusCode: 200, errorClass: null });
        const got = receiver.requests[before];
        expect(got?.method).toBe("POST");
        expect(got?.path).toBe("/in?x=1");
        expect(got?.body).toBe(body);
        const verified = verifyWebhook({
          secret,
          headers: got?.headers ?? {},
          rawBody: got?.body ?? "",
          nowSeconds: Math.floor(Date.now() / 1000),
        });
        expect(verified).toMatchObject({
          ok: true,
          event: { id: envelope.id, type: "webhook.test" },
        });
        // Only the spec's headers plus the transport's own (Host, Content-Length, Connection; fetch
        // also sends Accept: */*, and no Accept-Encoding: nothing is decompressed).
        expect(Object.keys(got?.headers ?? {}).sort()).toEqual([
          ...(transport === "fetch" ? ["accept"] : []),
          "connection",
          "content-length",
          "content-type",
          "host",
          "svc-webhook-id",
          "svc-webhook-signature",
          "svc-webhook-timestamp",
          "user-agent",
        ]);
        expect(got?.headers["svc-webhook-signature"]).toMatch(/^v1=[0-9a-f]{64}$/);
        expect(got?.headers["svc-webhook-timestamp"]).toBe(
          String(Math.floor(result.startedAt.getTime() / 1000)),
        );
      });

      test("a signature made with another secret does not verify", async () => {
        const s = sender();
        const before = receiver.requests.length;
        await send(s, receiver.url());
        const got = receiver.requests[before];
        expect(
          verifyWebhook({
            secret: "whsec_other",
            headers: got?.headers ?? {},
            rawBody: got?.body ?? "",
            nowSeconds: Math.floor(Date.now() / 1000),
          }),
        ).toEqual({ ok: false, reason: "signature_mismatch" });
      });

      test("keep-alive: consecutive sends to one receiver reuse the connection", async () => {
        const s = sender();
        const before = receiver.requests.length;
        await send(s, receiver.url());
        await send(s, receiver.url());
        const [a, b] = receiver.requests.slice(before);
        expect(a?.peerPort).toBeDefined();
        expect(b?.peerPort).toBe(a?.peerPort as number);
      });
    });

    describe("sender: connects to the checked address with SNI and Host for the name", () => {
      test("the name is resolved once, the checked address is dialled, and TLS is checked against the name", async () => {
        const calls: string[] = [];
        const resolve: Resolver = async (host) => {
          calls.push(host);
          return ["127.0.0.1"];
        };
        const s = sender({ resolve });
        const before = receiver.requests.length;
        // hooks.example.test does not exist in DNS: only the checked address can have been used.
        const result = await send(s, `https://hooks.example.test:${receiver.port}/named`);
        expect(result).toMatchObject({ ok: true, statusCode: 200 });
        expect(calls).toEqual(["hooks.example.test"]);
        expect(receiver.requests[before]?.headers.host).toBe(`hooks.example.test:${receiver.port}`);
      });

      test("a checked answer is dialled for its TTL; after it the name is checked again and a rebinding answer is refused unsent", async () => {
        const clock = createFakeClock();
        const answers = [
          [{ address: "127.0.0.1", ttlSeconds: 30 }],
          [{ address: "0.0.0.0", ttlSeconds: 30 }],
        ];
        let calls = 0;
        const s = sender({
          clock,
          resolveWithTtl: async () => answers[Math.min(calls++, 1)] ?? [],
        });
        const before = receiver.requests.length;
        const named = `https://hooks.example.test:${receiver.port}/ttl`;
        expect(await send(s, named)).toMatchObject({ ok: true });
        expect(await send(s, named)).toMatchObject({ ok: true });
        expect(calls).toBe(1);
        clock.advance(30_000);
        const rebound = await send(s, named);
        expect(rebound).toMatchObject({ ok: false, errorClass: "blocked_address" });
        expect(rebound.errorMessage).toContain("0.0.0.0");
        expect(calls).toBe(2);
        expect(receiver.requests.length - before).toBe(2);
      });

      test("a certificate for another name fails as tls even though the address is right", async () => {
        const other = await pki.issue(["other.example.test"]);
        const r = startReceiver(other);
        cleanup.push(() => r.stop());
        const s = sender({ resolve: async () => ["127.0.0.1"] });
        const result = await send(s, `https://hooks.example.test:${r.port}/`);
        expect(result).toMatchObject({ ok: false, errorClass: "tls", statusCode: null });
        expect(r.requests).toHaveLength(0);
      });

      test("a failure's message names no URL: a token in the endpoint's path or query stays out of it", async () => {
        const other = await pki.issue(["other.example.test"]);
        const r = startReceiver(other);
        cleanup.push(() => r.stop());
        const s = sender({ resolve: async () => ["127.0.0.1"] });
        const failures = [
          await send(s, `https://hooks.example.test:${r.port}/hook/tok_secret1?key=tok_secret2`),
          await send(s, `https://127.0.0.1:${await freePort()}/hook/tok_secret1?key=tok_secret2`),
        ];
        for (const result of failures) {
          expect(result.ok).toBe(false);
          expect(result.errorMessage).not.toContain("tok_secret");
          expect(result.errorMessage).not.toContain("https://");
        }
      });

      test("a resolver answering a private address at delivery time is refused before connecting", async () => {
        const s = sender({ allowPrivate: false, resolve: async () => ["10.1.2.3"] });
        const result = await send(s, "https://hooks.example.test/");
        expect(result).toMatchObject({ ok: false, errorClass: "blocked_address" });
        expect(result.errorMessage).toContain("10.1.2.3");
      });

      test("one private address among public ones refuses the delivery (every address is checked)", async () => {
        const s = sender({
          allowPrivate: false,
          resolve: async () => ["93.184.216.34", "127.0.0.1"],
        });
        const result = await send(s, "https://hooks.example.test/");
        expect(result).toMatchObject({ ok: false, errorClass: "blocked_address" });
      });

      test("a name that does not resolve fails as dns", async () => {
        const s = sender({
          resolve: async () => {
            throw new Error("ENOTFOUND");
          },
        });
        expect(await send(s, "https://nowhere.example.test/")).toMatchObject({
          ok: false,
          errorClass: "dns",
        });
      });
    });

    describe("sender: trust is the default roots plus the operator's CA file only", () => {
      test("without deliveryCaFile the test CA is not trusted: tls failure", async () => {
        const s = sender({ caFile: undefined });
        expect(await send(s, receiver.url())).toMatchObject({ ok: false, errorClass: "tls" });
      });

      test("a self-signed certificate fails as tls", async () => {
        const r = startReceiver(await pki.selfSigned(loopbackNames));
        cleanup.push(() => r.stop());
        const result = await send(sender(), r.url());
        expect(result).toMatchObject({ ok: false, errorClass: "tls" });
        expect(r.requests).toHaveLength(0);
      });

      test("an expired certificate fails as tls", async () => {
        const r = startReceiver(await pki.issue(loopbackNames, { expired: true }));
        cleanup.push(() => r.stop());
        const result = await send(sender(), r.url());
        expect(result).toMatchObject({ ok: false, errorClass: "tls" });
        expect(result.errorMessage).toMatch(/expired/i);
      });
    });

    describe("sender: the operator's CA file", () => {
      test("a file without a PEM certificate stops start-up with a configuration error", async () => {
        const path = `${makeTempDir("svc-ca")}/not-a-ca.pem`;
        await Bun.write(path, "hello");
        expect(() => sender({ caFile: path })).toThrow(ConfigError);
        expect(() => sender({ caFile: path })).toThrow(/holds no PEM certificate/);
      });
    });

    describe("sender: outcomes (spec 4: any 2xx within 10 s is success, everything else fails)", () => {
      test.each([
        [204, true, null],
        [299, true, null],
        [301, false, "redirect"],
        [302, false, "redirect"],
        [307, false, "redirect"],
        [400, false, "http_status"],
        [410, false, "http_status"],
        [500, false, "http_status"],
        [503, false, "http_status"],
      ] as const)("status %i -> ok=%p class=%p", async (status, ok, errorClass) => {
        const r = startReceiver(
          good,
          () =>
            new Response(null, {
              status,
              headers: status < 400 && status >= 300 ? { location: "/elsewhere" } : {},
            }),
        );
        cleanup.push(() => r.stop());
        const result = await send(sender(), r.url("/first"));
        expect(result).toMatchObject({ ok, statusCode: status, errorClass });
        // A redirect is never followed: the receiver saw exactly the one request.
        expect(r.requests.map((q) => q.path)).toEqual(["/first"]);
      });

      test("connection refused fails as connect", async () => {
        const port = await freePort();
        const result = await send(sender(), `https://127.0.0.1:${port}/`);
        expect(result).toMatchObject({ ok: false, errorClass: "connect", statusCode: null });
      });

      test("the deadline for the whole exchange is 10 seconds unless a test shortens it (spec 4, 8)", () => {
        expect(deliveryTimeoutMs).toBe(10_000);
      });

      test("a receiver that never answers fails as timeout when the deadline passes", async () => {
        const r = startReceiver(good, neverAnswer);
        cleanup.push(() => r.stop());
        const result = await send(sender({ timeoutMs: 300 }), r.url());
        expect(result).toMatchObject({ ok: false, errorClass: "timeout", statusCode: null });
        expect(result.durationMs).toBeGreaterThanOrEqual(250);
      });

      test("the deadline also covers a TLS handshake that never completes", async () => {
        const tcp: TcpServer = createTcpServer((socket) => {
          cleanup.push(() => socket.destroy());
        });
        const port = await listening(tcp);
        const result = await send(sender({ timeoutMs: 300 }), `https://127.0.0.1:${port}/`);
        expect(result).toMatchObject({ ok: false, errorClass: "timeout" });
      });

      test("the deadline covers response headers that never come after the handshake", async () => {
        const stalled = createTlsServer({
          cert: readFileSync(good.certFile),
          key: readFileSync(good.keyFile),
        });
        stalled.on("secureConnection", (socket) => {
          cleanup.push(() => socket.destroy());
        });
        const port = await listening(stalled);
        const result = await send(sender({ timeoutMs: 300 }), `https://127.0.0.1:${port}/`);
        expect(result).toMatchObject({ ok: false, errorClass: "timeout" });
      });

      test("the response body is never read: an endless body does not hold the result, and the connection is closed", async () => {
        let cancelled = false;
        const r = startReceiver(good, () => {
          const endless = new ReadableStream({
            pull: async (controller) => {
              await Bun.sleep(20);
              controller.enqueue(new TextEncoder().encode("x".repeat(1024)));
            },
            cancel: () => {
              cancelled = true;
            },
          });
          return new Response(endless, { status: 200 });
        });
        cleanup.push(() => r.stop());
        const result = await send(sender({ timeoutMs: 5_000 }), r.url());
        expect(result).toMatchObject({ ok: true, statusCode: 200, errorClass: null });
        for (let i = 0; i < 200 && !cancelled; i++) await Bun.sleep(10);
        expect(cancelled).toBe(true);
      });
    });
  });
}

describe("sender: the transport", () => {
  beforeAll(() => {
    transport = "fetch";
  });

  test("fetch by default; node:https when a source address is bound (fetch ignores localAddress)", () => {
    expect(sender().transport).toBe("fetch");
    expect(sender({ sourceIp: "127.0.0.2", hostAddresses: ["127.0.0.2"] }).transport).toBe(
      "node:https",
    );
  });

  test("more sends at once than fetch runs at once go over node:https (the rest would wait inside fetch, their deadline running)", () => {
    expect(sender({ inFlight: 64 }).transport).toBe("fetch");
    expect(sender({ inFlight: 224 }).transport).toBe("fetch");
    expect(sender({ inFlight: 225 }).transport).toBe("node:https");
    expect(sender({ inFlight: 1024 }).transport).toBe("node:https");
  });

  test(`platform fact behind that limit: Bun's fetch runs ${fetchRequestsAtOnce} requests at once in a process`, async () => {
    let open = 0;
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const r = startReceiver(good, async () => {
      open++;
      await released;
      return new Response(null, { status: 204 });
    });
    cleanup.push(() => r.stop());
    const session = new Bun.FetchSession({ tls: { ca: await Bun.file(pki.caFile).text() } });
    const all = Promise.all(
      Array.from({ length: fetchRequestsAtOnce + 40 }, () =>
        session.fetch(r.url(), { method: "POST", body: "{}" }).then((res) => res.arrayBuffer()),
      ),
    );
    // Until the count stands still for a while: every request fetch lets out has arrived.
    for (let seen = -1, still = 0; still < 5; await Bun.sleep(40)) {
      still = open === seen ? still + 1 : 0;
      seen = open;
    }
    expect(open).toBe(fetchRequestsAtOnce);
    release();
    await all;
    expect(open).toBe(fetchRequestsAtOnce + 40);
    session.close();
  });

  test("a proxy in the process's environment is never used: deliveries go straight to the checked address", async () => {
    const saved = process.env.HTTPS_PROXY;
    // A proxy that refuses every connection: a delivery sent through it would fail.
    process.env.HTTPS_PROXY = `http://127.0.0.1:${await freePort()}`;
    try {
      const s = createSender({ clock: systemClock, allowPrivate: true, caFile: pki.caFile });
      cleanup.push(() => s.close());
      expect(s.transport).toBe("node:https");
      const before = receiver.requests.length;
      expect(await send(s, receiver.url("/direct"))).toMatchObject({ ok: true, statusCode: 200 });
      expect(receiver.requests[before]?.path).toBe("/direct");
    } finally {
      if (saved === undefined) delete process.env.HTTPS_PROXY;
      else process.env.HTTPS_PROXY = saved;
    }
  });
});

describe("sender: source address (spec 4: one fixed address)", () => {
  test("the configured source IP is bound when it is an address of this host", async () => {
    const s = sender({ sourceIp: "127.0.0.2", hostAddresses: ["127.0.0.2", "::1"] });
    expect(s.boundSourceAddress).toBe("127.0.0.2");
    const before = receiver.requests.length;
    expect(await send(s, receiver.url())).toMatchObject({ ok: true });
    expect(receiver.requests[before]?.peerAddress).toBe("127.0.0.2");
  });

  test("platform fact behind choosing node:https: Bun's fetch ignores localAddress", async () => {
    const before = receiver.requests.length;
    const response = await fetch(receiver.url(), {
      method: "POST",
      body: "{}",
      tls: { ca: await Bun.file(pki.caFile).text() },
      localAddress: "127.0.0.2",
    } as RequestInit);
    expect(response.status).toBe(200);
    // Were fetch to honour it, the peer would be 127.0.0.2; the sender's choice should be
    // revisited.
    expect(receiver.requests[before]?.peerAddress).toBe("127.0.0.1");
  });

  test("a source IP this host does not have is not bound, and a warning says why", async () => {
    const lines: string[] = [];
    const s = sender({
      sourceIp: "203.0.113.9",
      hostAddresses: ["127.0.0.1"],
      log: createLogger({ write: (line) => lines.push(line) }),
    });
    expect(s.boundSourceAddress).toBeUndefined();
    expect(lines.join("\n")).toContain("deliverySourceIp is not an address of this host");
    expect(await send(s, receiver.url())).toMatchObject({ ok: true });
  });
});
