// Forwards one streamed event to the developer's local receiver, signed exactly as a real
// delivery (spec 4): the same headers built by the same function (webhooks/delivery/signing.ts),
// the same body bytes, the same Host and Content-Length and nothing else, with the listen secret in
// place of an endpoint's. Loopback and private targets are allowed: this runs on the developer's
// own machine. Redirects are not followed and nothing is retried: the next event goes on.
import http from "node:http";
import https from "node:https";
import type { SecureContext } from "node:tls";
import { deliveryHeaders } from "../webhooks/delivery/signing.ts";

/** As long as a real delivery attempt may take before it counts as failed. */
const forwardTimeoutMs = 10_000;

export interface ForwardResult {
  /** The receiver's status code, or null when no answer came. */
  statusCode: number | null;
  /** Why no answer came (connection refused, timeout). */
  error: string | null;
  durationMs: number;
}

export function forwardEvent(input: {
  url: URL;
  eventId: string;
  body: string;
  secret: string;
  now: Date;
  secureContext?: SecureContext | undefined;
  timeoutMs?: number;
}): Promise<ForwardResult> {
  const started = performance.now();
  const timeoutMs = input.timeoutMs ?? forwardTimeoutMs;
  const finish = (statusCode: number | null, error: string | null): ForwardResult => ({
    statusCode,
    error,
    durationMs: Math.max(0, Math.round(performance.now() - started)),
  });
  const url = input.url;
  const secure = url.protocol === "https:";
  const headers = {
    ...deliveryHeaders({
      eventId: input.eventId,
      body: input.body,
      secret: input.secret,
      attemptAt: input.now,
    }),
    Host: url.host,
    "Content-Length": String(Buffer.byteLength(input.body)),
  };
  return new Promise((settle) => {
    let settled = false;
    const done = (result: ForwardResult) => {
      if (settled) return;
      settled = true;
      settle(result);
    };
    const options = {
      method: "POST",
      host: url.hostname.replace(/^\[(.*)\]$/, "$1"),
      port: url.port === "" ? (secure ? 443 : 80) : Number(url.port),
      path: `${url.pathname}${url.search}`,
      headers,
      signal: AbortSignal.timeout(timeoutMs),
      ...(secure && input.secureContext ? { secureContext: input.secureContext } : {}),
    };
    const onResponse = (response: http.IncomingMessage) => {
      done(finish(response.statusCode ?? 0, null));
      response.on("error", () => {});
      response.resume();
    };
    const request = secure ? https.request(options, onResponse) : http.request(options, onResponse);
    request.on("error", (error: NodeJS.ErrnoException) => {
      const timedOut = error.name === "AbortError" || error.name === "TimeoutError";
      done(
        finish(
          null,
          timedOut ? `no answer within ${timeoutMs / 1000} s` : (error.code ?? error.message),
        ),
      );
    });
    request.end(input.body);
  });
}
