// Headers on every answer a browser may render or load as a page: the portal, its API, the
// reference (/v1/docs, /v1/openapi.json) and the bank callback page. Framing is refused
// (clickjacking) by `Content-Security-Policy: frame-ancestors 'none'`, which only a header can
// carry (a `<meta>` policy ignores frame-ancestors), and `X-Frame-Options: DENY` for browsers
// without CSP 2; `nosniff` keeps JSON and scripts from being read as another type; no Referer
// leaves the portal. The /v1 resources (JSON for programs, `no-store`) do without: they are the
// hot path and no browser frames them.
import type { MiddlewareHandler } from "hono";

const frameAncestorsNone = "frame-ancestors 'none'";

const securityHeaders: Readonly<Record<string, string>> = {
  "X-Frame-Options": "DENY",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
};

/** Whether `path` is a /v1 resource (not the reference pages under /v1). */
function isApiResource(path: string): boolean {
  return path.startsWith("/v1/") && !path.startsWith("/v1/docs") && path !== "/v1/openapi.json";
}

/** Adds the headers above; a page's own CSP (docs, callback) gains frame-ancestors if it lacks it. */
export function securityHeadersMiddleware(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    if (isApiResource(c.req.path)) return;
    const headers = c.res.headers;
    for (const [name, value] of Object.entries(securityHeaders)) headers.set(name, value);
    const policy = headers.get("Content-Security-Policy");
    if (policy === null) headers.set("Content-Security-Policy", frameAncestorsNone);
    else if (!/(^|;)\s*frame-ancestors\b/i.test(policy)) {
      headers.set("Content-Security-Policy", `${policy}; ${frameAncestorsNone}`);
    }
  };
}
