// Request bodies are bounded before anything reads them (docs/security.md "Request bodies"):
// 64 KiB for every route (portal JSON, sign-in, the bank callback, the /v1 API, which takes
// none), except the operator import, which keeps its own documented 50 MiB
// (portal/routes/import-routes.ts). A declared Content-Length over the limit is refused before a
// byte is read; a chunked body is counted as it arrives and refused at the first byte over. The
// listener's own maximum (server/server.ts) is the largest of these, so Bun refuses anything bigger
// itself.
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { ApiError } from "../core/errors.ts";

/** Portal JSON, the callback and every route without a larger documented size. */
export const maxJsonBodyBytes = 64 * 1024;

export function tooLargeError(maxBytes: number, hint: string): ApiError {
  return new ApiError(
    "payload_too_large",
    `The request body may be at most ${maxBytes} bytes${hint ? `; ${hint}` : ""}.`,
  );
}

/** Limits every request's body to `maxBytes`, except on paths `exempt` names (their own limit). */
export function bodyLimitMiddleware(options: {
  maxBytes: number;
  exempt: (path: string) => boolean;
}): MiddlewareHandler {
  const limit = bodyLimit({
    maxSize: options.maxBytes,
    onError: () => {
      throw tooLargeError(options.maxBytes, "");
    },
  });
  return (c, next) => {
    if (c.req.raw.body === null || options.exempt(c.req.path)) return next();
    return limit(c, next);
  };
}
