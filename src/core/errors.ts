// One error model for HTTP, portal and CLI: a code, its HTTP status, a message for people.
// Rendered everywhere as {"error":{"code","message"}} (spec 7) by http/error-handler.ts.
import type { ContentfulStatusCode } from "hono/utils/http-status";

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

/** The 500 message: nothing internal, only the id to quote. */
export function internalErrorMessage(requestId: string | undefined): string {
  return `Something went wrong on our side. Quote request id ${requestId ?? "(none)"} when reporting it.`;
}
