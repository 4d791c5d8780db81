// One error model for HTTP, portal and CLI: a code, its HTTP status, a message for people.
// Rendered everywhere as {"error":{"code","message"}} (spec 7).
import type { Context, ErrorHandler, NotFoundHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Logger } from "../log.ts";

export const errorStatus = {
  // Spec 7: authentication and entitlement.
  not_authenticated: 401,
  invalid_api_key: 401,
  user_inactive: 401,
  subscription_lapsed: 403,
  demo_account: 403,
  connect_not_available: 403,
  // Everything else the service answers.
  invalid_request: 400,
  cursor_expired: 400,
  invalid_url: 400,
  session_required: 401,
  invalid_credentials: 401,
  forbidden: 403,
  account_disabled: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  limit_exceeded: 409,
  invalid_state: 409,
  code_expired: 410,
  misdirected_request: 421,
  payload_too_large: 413,
  rate_limited: 429,
  internal_error: 500,
  unavailable: 503,
} as const satisfies Record<string, ContentfulStatusCode>;

export type ErrorCode = keyof typeof errorStatus;

export interface ErrorBody {
  error: { code: ErrorCode; message: string };
}

export class ApiError extends Error {
  override name = "ApiError";
  readonly status: ContentfulStatusCode;
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra response headers, e.g. Retry-After or WWW-Authenticate. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = errorStatus[code];
  }

  toBody(): ErrorBody {
    return { error: { code: this.code, message: this.message } };
  }
}

export const requestIdHeader = "Svc-Request-Id";

export function errorResponse(c: Context, error: ApiError): Response {
  for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
  if (error.status === 401 && !error.headers["WWW-Authenticate"]) {
    c.header("WWW-Authenticate", 'Bearer realm="svc"');
  }
  return c.json(error.toBody(), error.status);
}

/** The 500 message: nothing internal, only the id to quote. */
export function internalErrorMessage(requestId: string | undefined): string {
  return `Something went wrong on our side. Quote request id ${requestId ?? "(none)"} when reporting it.`;
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
