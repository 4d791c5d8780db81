// Same-origin check on every state-changing portal request (DESIGN.md "Portal"). The portal
// sends JSON with fetch from its own page, so a browser always attaches Origin (or at least
// Sec-Fetch-Site); anything else is refused.
import type { MiddlewareHandler } from "hono";
import { ApiError } from "../http/errors.ts";

const safeMethods = new Set(["GET", "HEAD", "OPTIONS"]);

export function sameOriginOnWrites(baseUrl: string): MiddlewareHandler {
  const configuredOrigin = new URL(baseUrl).origin;
  return async (c, next) => {
    if (!safeMethods.has(c.req.method)) {
      const origin = c.req.header("origin");
      const requestOrigin = new URL(c.req.url).origin;
      const allowed =
        origin !== undefined
          ? origin === configuredOrigin || origin === requestOrigin
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
