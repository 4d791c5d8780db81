// HTTPS webhook receivers on loopback for tests: they record every request (raw body bytes
// as text, headers, peer address) and answer with whatever the test chooses.
import type { Server } from "bun";
import type { CertFiles } from "./pki.ts";

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  peerAddress: string | undefined;
  peerPort: number | undefined;
  receivedAt: number;
}

export type ReceiverHandler = (request: ReceivedRequest) => Response | Promise<Response>;

export interface Receiver {
  port: number;
  /** https://127.0.0.1:<port><path> */
  url(path?: string): string;
  requests: ReceivedRequest[];
  /** Requests whose handler has not answered yet. */
  open(): number;
  /** The most requests that were open at the same time. */
  maxOpen(): number;
  respond(handler: ReceiverHandler): void;
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  stop(): Promise<void>;
}

export function startReceiver(cert: CertFiles, handler?: ReceiverHandler): Receiver {
  const requests: ReceivedRequest[] = [];
  let current: ReceiverHandler = handler ?? (() => new Response(null, { status: 200 }));
  let open = 0;
  let maxOpen = 0;
  const server: Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    tls: { cert: Bun.file(cert.certFile), key: Bun.file(cert.keyFile) },
    idleTimeout: 30,
    async fetch(req, srv) {
      const url = new URL(req.url);
      const peer = srv.requestIP(req);
      const received: ReceivedRequest = {
        method: req.method,
        path: `${url.pathname}${url.search}`,
        headers: Object.fromEntries(req.headers),
        body: await req.text(),
        peerAddress: peer?.address,
        peerPort: peer?.port,
        receivedAt: Date.now(),
      };
      requests.push(received);
      open++;
      maxOpen = Math.max(maxOpen, open);
      try {
        return await current(received);
      } finally {
        open--;
      }
    },
  });
  const port = server.port as number;
  return {
    port,
    url: (path = "/hooks") => `https://127.0.0.1:${port}${path}`,
    requests,
    open: () => open,
    maxOpen: () => maxOpen,
    respond(next) {
      current = next;
    },
    async waitFor(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (requests.length < count) {
        if (Date.now() > deadline) {
          throw new Error(`receiver got ${requests.length} requests, expected ${count}`);
        }
        await Bun.sleep(5);
      }
      return requests;
    },
    stop: () => server.stop(true),
  };
}

/** A handler that never answers (until the test process ends). */
export const neverAnswer: ReceiverHandler = () => new Promise<Response>(() => {});

/**
 * Answers verification sends with 200 (so the endpoint can be verified) and every other
 * event with `handler`.
 */
export function acceptVerification(handler: ReceiverHandler): ReceiverHandler {
  return (request) =>
    JSON.parse(request.body).type === "webhook.verify"
      ? new Response(null, { status: 200 })
      : handler(request);
}
