// Conditional reads of /v1: every successful GET carries a strong `ETag`, a 128-bit
// fingerprint of the exact body bytes, so two answers share a tag exactly when their bytes are
// equal. A request whose `If-None-Match` names that tag (or `*`) is answered 304 with no
// body. The 304 is decided after the key, entitlement and rate-limit checks (the middleware sits
// behind apiAuthMiddleware; the cached-answer lane checks first too), so it counts against the
// limit like any read; errors never carry a tag.
import type { MiddlewareHandler } from "hono";
import type { ApiEnv } from "./auth.ts";

export const etagHeader = "ETag";

/**
 * The strong entity tag of a body (a string is taken as its UTF-8 bytes): `"` + xxHash3-64 and
 * wyhash-64 of the bytes in hex + `"`. Two unrelated fast hashes, 128 bits in all: an accidental
 * collision is out of reach, and the tag guards no secret (it only tells a client whether its own
 * copy is current), so a cryptographic hash buys nothing here; SHA-256 of a 36 KB page cost
 * ~110 µs on this machine, more than the rest of the request (BENCHMARKS.md).
 */
export function entityTagOf(body: Uint8Array | ArrayBuffer | string): string {
  const first = Bun.hash.xxHash3(body).toString(16).padStart(16, "0");
  const second = BigInt(Bun.hash.wyhash(body)).toString(16).padStart(16, "0");
  return `"${first}${second}"`;
}

const entityTagPattern = /(?:W\/)?"([^"]*)"/g;

/**
 * Whether an `If-None-Match` header matches the current tag (RFC 9110 13.1.2): `*` matches any
 * current representation; otherwise a comma list of tags compared weakly (a `W/` prefix on
 * either side is ignored).
 */
export function ifNoneMatchMatches(header: string | null | undefined, etag: string): boolean {
  if (header === null || header === undefined) return false;
  if (header.trim() === "*") return true;
  const opaque = etag.startsWith("W/") ? etag.slice(2) : etag;
  for (const match of header.matchAll(entityTagPattern)) {
    if (`"${match[1]}"` === opaque) return true;
  }
  return false;
}

/** Headers a 304 must not carry: it has no body (RFC 9110 15.4.5). */
const bodyHeaders = new Set(["content-type", "content-length", "content-encoding"]);

/** The 304 for a 200 answer with these headers: the same headers (ETag, Cache-Control, ...) minus the body's. */
export function notModifiedResponse(okHeaders: Headers): Response {
  const headers = new Headers();
  okHeaders.forEach((value, name) => {
    if (!bodyHeaders.has(name)) headers.set(name, value);
  });
  return new Response(null, { status: 304, headers });
}

/**
 * Tags every 200 GET answered by the routes after it, and answers a matching `If-None-Match` 304.
 * A route that built its body as text may set the tag itself (entityTagOf(text)), which spares
 * reading the body back here (the transactions page, the largest answer).
 */
export function entityTagMiddleware(): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    await next();
    if (c.req.method !== "GET" || c.res.status !== 200) return;
    // A stream (Server-Sent Events) has no final bytes to tag, and reading it would never end.
    if (c.res.headers.get("content-type")?.startsWith("text/event-stream")) return;
    const tagged = c.res.headers.get(etagHeader);
    if (tagged !== null) {
      if (ifNoneMatchMatches(c.req.header("if-none-match"), tagged)) {
        const headers = c.res.headers;
        c.res = undefined;
        c.res = notModifiedResponse(headers);
      }
      return;
    }
    const body = new Uint8Array(await c.res.arrayBuffer());
    const etag = entityTagOf(body);
    const headers = new Headers(c.res.headers);
    headers.set(etagHeader, etag);
    // Cleared first so Hono does not merge the old answer's headers into the new one.
    c.res = undefined;
    c.res = ifNoneMatchMatches(c.req.header("if-none-match"), etag)
      ? notModifiedResponse(headers)
      : new Response(body, { status: 200, headers });
  };
}
