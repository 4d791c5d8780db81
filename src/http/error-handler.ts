// How the one error model is answered over HTTP: {"error":{"code","message"}} with the code's
// status (spec 7); anything that is not an ApiError is logged with the request id and becomes a
// 500 that says nothing internal.
import type { Context, ErrorHandler, NotFoundHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { ApiError, type ErrorCode, internalErrorMessage, requestIdHeader } from "../core/errors.ts";
import type { Logger } from "../log/log.ts";

export function errorResponse(c: Context, error: ApiError): Response {
  for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
  if (error.status === 401 && !error.headers["WWW-Authenticate"]) {
    c.header("WWW-Authenticate", 'Bearer realm="svc"');
  }
  return c.json(error.toBody(), error.status);
}

/** The app's onError: known errors render as themselves; anything else is a logged 500. */
export function createErrorHandler(log: Logger): ErrorHandler {
  return (err, c) => {
    if (err instanceof ApiError) return errorResponse(c, err);
    if (err instanceof HTTPException && err.status < 500) {
      const code: ErrorCode =
        err.status === 413
          ? "payload_too_large"
          : err.status === 404
            ? "not_found"
            : "invalid_request";
      return errorResponse(c, new ApiError(code, err.message || "The request could not be read."));
    }
    const requestId = c.res.headers.get(requestIdHeader) ?? c.get("requestId" as never);
    log.error("unhandled error", { requestId, method: c.req.method, path: c.req.path, error: err });
    return errorResponse(c, new ApiError("internal_error", internalErrorMessage(requestId)));
  };
}

export const notFoundHandler: NotFoundHandler = (c) =>
  errorResponse(c, new ApiError("not_found", `No route for ${c.req.method} ${c.req.path}.`));
