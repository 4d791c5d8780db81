// Same-origin checks on the portal API (DESIGN.md "Portal"; issue 13). Both compare with the
// configured `baseUrl`, never with the request's own Host: a page of another site whose name
// resolves to this server (DNS rebinding: `Host: evil.test`, `Origin: http://evil.test`) would
// otherwise pass as "same origin".
// - Every request must name the base URL's host in `Host` (for a loopback base URL such as the
//   default `http://localhost:8080`, any loopback name on its port); other hosts answer 421
//   `misdirected_request`. (Behind a proxy, the proxy passes `Host` through: operator guide.)
// - Every state-changing request must also carry `Origin` naming the base URL's origin, or,
//   without `Origin`, `Sec-Fetch-Site: same-origin`. The portal sends JSON with fetch from its
//   own page, so a browser always attaches one of them; anything else is 403 `forbidden`.
import type { MiddlewareHandler } from "hono";
import { ApiError } from "../http/errors.ts";

const safeMethods = new Set(["GET", "HEAD", "OPTIONS"]);
/** Names of this machine's loopback interface: equivalent when the base URL is one of them. */
const loopbackNames = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** `Host` or `Origin` as a URL of the base URL's scheme; undefined unless it is exactly that. */
function asUrl(protocol: string, host: string | undefined): URL | undefined {
  if (!host || !URL.canParse(`${protocol}//${host}`)) return undefined;
  const url = new URL(`${protocol}//${host}`);
  const spelled = host.toLowerCase();
  const defaultPort = protocol === "https:" ? ":443" : ":80";
  return url.host === spelled || `${url.host}${defaultPort}` === spelled ? url : undefined;
}

/**
 * The base URL's host, or, when the base URL names this machine's loopback (the default
 * `http://localhost:8080`), another loopback name for it on the same port: no other site's page
 * can carry those names.
 */
function isConfiguredHost(configured: URL, candidate: URL | undefined): boolean {
  if (!candidate) return false;
  if (candidate.host === configured.host) return true;
  return (
    loopbackNames.has(configured.hostname) &&
    loopbackNames.has(candidate.hostname) &&
    candidate.port === configured.port
  );
}

function isConfiguredOrigin(configured: URL, origin: string): boolean {
  const match = /^(https?:)\/\/([^/]+)$/.exec(origin);
  return (
    match?.[1] === configured.protocol &&
    isConfiguredHost(configured, asUrl(configured.protocol, match[2]))
  );
}

export function sameOriginOnly(baseUrl: string): MiddlewareHandler {
  const configured = new URL(baseUrl);
  return async (c, next) => {
    if (!isConfiguredHost(configured, asUrl(configured.protocol, c.req.header("host")))) {
      throw new ApiError(
        "misdirected_request",
        `This portal answers only at ${configured.origin}; open it there.`,
      );
    }
    if (!safeMethods.has(c.req.method)) {
      const origin = c.req.header("origin");
      const allowed =
        origin !== undefined
          ? isConfiguredOrigin(configured, origin)
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
