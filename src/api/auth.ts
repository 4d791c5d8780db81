// Authentication and entitlement for every /v1 resource route, in the order of the issue and
// DESIGN.md: no header -> not_authenticated; not `Bearer <key>`, malformed, unknown or revoked ->
// invalid_api_key; then the account's state (disabled, demo, connect off, not entitled); then the
// per-key rate limit. 401s get `WWW-Authenticate: Bearer` from errorResponse.
import type { MiddlewareHandler } from "hono";
import { decideApiAccess } from "../accounts/entitlement.ts";
import { ApiError } from "../http/errors.ts";
import type { KeyAuthenticator } from "../keys/authenticate.ts";
import { type KeyRateLimiter, rateLimitHeaders } from "./rate-limit.ts";

/** Who the request acts for: every read is scoped to `serviceAccountId`. */
export interface Principal {
  keyId: string;
  serviceAccountId: string;
  /** Database generation seen by the key check; a cache keyed on it is never stale. */
  dataGeneration: string;
}

export interface ApiEnv {
  Variables: { principal: Principal };
}

const bearerPattern = /^Bearer +(\S+) *$/i;
const keyShapeHint = "API keys look like svk_ followed by 8 characters, _ and 43 characters.";

export function apiAuthMiddleware(deps: {
  authenticator: KeyAuthenticator;
  rateLimiter: KeyRateLimiter | undefined;
}): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    // Bank data and errors about keys: never stored by shared caches or the browser.
    c.header("Cache-Control", "no-store");
    const header = c.req.header("authorization");
    if (header === undefined) {
      throw new ApiError(
        "not_authenticated",
        "No API key was sent. Send it in the header `Authorization: Bearer <API key>`.",
      );
    }
    const presented = bearerPattern.exec(header)?.[1];
    if (presented === undefined) {
      throw new ApiError(
        "invalid_api_key",
        "The Authorization header must have the form `Bearer <API key>`.",
      );
    }
    const check = deps.authenticator.check(presented);
    if (!check.ok) {
      const message =
        check.reason === "malformed"
          ? `The API key is malformed. ${keyShapeHint}`
          : check.reason === "revoked"
            ? `This API key was revoked at ${check.revokedAt.toISOString()}. Use another key of the account or create a new one.`
            : "The API key is not known. Check that it was copied whole and that it belongs to this service.";
      throw new ApiError("invalid_api_key", message);
    }
    const decision = decideApiAccess(check.access);
    if (!decision.allowed) throw new ApiError(decision.code, decision.message);
    if (deps.rateLimiter) {
      const limit = deps.rateLimiter.consume(check.keyId);
      const headers = rateLimitHeaders(limit);
      if (!limit.allowed) {
        throw new ApiError(
          "rate_limited",
          `Too many requests with this API key: at most ${limit.limit} a minute. Retry after ${limit.resetSeconds} s.`,
          { ...headers, "Retry-After": String(limit.resetSeconds) },
        );
      }
      for (const [name, value] of Object.entries(headers)) c.header(name, value);
    }
    c.set("principal", {
      keyId: check.keyId,
      serviceAccountId: check.serviceAccountId,
      dataGeneration: check.dataGeneration,
    });
    await next();
  };
}
