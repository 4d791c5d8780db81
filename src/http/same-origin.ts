// Same-origin checks on the portal API (docs/security.md "The portal"). Both compare with the
// configured `baseUrl`, never with the request's own Host: a page of another site whose name
// resolves to this server (DNS rebinding: `Host: evil.test`, `Origin: http://evil.test`) would
// otherwise pass as "same origin".
// - Every request must name the base URL's host in `Host`; other hosts answer 421
//   `misdirected_request`. (Behind a proxy, the proxy passes `Host` through: operator guide.)
// - Every state-changing request must also carry `Origin` equal to the base URL's origin (scheme,
//   host and port exactly), or, without `Origin`, `Sec-Fetch-Site: same-origin`. The portal sends
//   JSON with fetch from its own page, so a browser always attaches one of them; anything else is
//   403 `forbidden`.
//
// One alias is kept: when the base URL names loopback (the default `http://localhost:8080`) and
// the server listens on a loopback address (the default 127.0.0.1), that listening address
// (`http://127.0.0.1:8080`) is the same server too, since no other process can hold that address
// and port while this one does. Other loopback names are not: `http://[::1]:8080` may be another
// program listening on the IPv6 loopback at the same port.
import type { MiddlewareHandler } from "hono";
import { ApiError } from "../core/errors.ts";

const safeMethods = new Set(["GET", "HEAD", "OPTIONS"]);
const loopbackNames = new Set(["localhost", "127.0.0.1", "[::1]"]);
const loopbackAddress = /^(127(\.\d{1,3}){3}|::1)$/;

/** Where this server listens (config host and port), for the loopback alias above. */
export interface ListeningAddress {
  host: string;
  port: number;
}

/** The origins the portal accepts, in the lower-case `scheme://host[:port]` form of URL.origin. */
function acceptedOrigins(baseUrl: string, listening?: ListeningAddress): Set<string> {
  const configured = new URL(baseUrl);
  const origins = new Set([configured.origin]);
  if (
    listening &&
    listening.port > 0 &&
    loopbackNames.has(configured.hostname) &&
    loopbackAddress.test(listening.host)
  ) {
    const host = listening.host.includes(":") ? `[${listening.host}]` : listening.host;
    origins.add(new URL(`${configured.protocol}//${host}:${listening.port}`).origin);
  }
  return origins;
}

/** `Host` as the origin it names under the base URL's scheme; undefined unless spelled exactly. */
function hostOrigin(protocol: string, host: string | undefined): string | undefined {
  if (!host || !URL.canParse(`${protocol}//${host}`)) return undefined;
  const url = new URL(`${protocol}//${host}`);
  const spelled = host.toLowerCase();
  const defaultPort = protocol === "https:" ? ":443" : ":80";
  return url.host === spelled || `${url.host}${defaultPort}` === spelled ? url.origin : undefined;
}

export function sameOriginOnly(baseUrl: string, listening?: ListeningAddress): MiddlewareHandler {
  const configured = new URL(baseUrl);
  const accepted = acceptedOrigins(baseUrl, listening);
  return async (c, next) => {
    const host = hostOrigin(configured.protocol, c.req.header("host"));
    if (host === undefined || !accepted.has(host)) {
      throw new ApiError(
        "misdirected_request",
        `This portal answers only at ${configured.origin}; open it there.`,
      );
    }
    if (!safeMethods.has(c.req.method)) {
      const origin = c.req.header("origin");
      const allowed =
        origin !== undefined
          ? accepted.has(origin.toLowerCase())
          : c.req.header("sec-fetch-site") === "same-origin";
      if (!allowed) {
        throw new ApiError(
          "forbidden",
          "Cross-origin request refused: portal changes must come from the portal's own pages.",
        );
      }
    }
    await next();
  };
}
