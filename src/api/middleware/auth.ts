// Authentication and entitlement for every /v1 resource route (spec 5 and 3 "Entitlement"), in
// this order: no header -> not_authenticated; not `Bearer <key>`, malformed, unknown or revoked ->
// invalid_api_key; then the account's state (disabled, demo, connect off, not entitled); then the
// account's rate limit (shared by its keys). 401s get `WWW-Authenticate: Bearer` from errorResponse.
import type { MiddlewareHandler } from "hono";
import { decideApiAccess } from "../../accounts/entitlement.ts";
import { ApiError, type ErrorCode } from "../../core/errors.ts";
import type { KeyAuthenticator, KeyCheck } from "../../keys/authenticate.ts";
import { type AccountRateLimiter, type RateLimitDecision, rateLimitHeaders } from "./rate-limit.ts";

/** Who the request acts for: every read is scoped to `serviceAccountId`. */
export interface Principal {
  keyId: string;
  serviceAccountId: string;
  /** The account's data generation seen by the key check; a cache keyed on it is never stale. */
  dataGeneration: number;
}

export interface ApiEnv {
  Variables: {
    principal: Principal;
    /** Set by a route whose answer depends on more than the account's data (answer-store.ts). */
    unremembered?: boolean;
  };
}

const bearerPattern = /^Bearer +(\S+) *$/i;
const keyShapeHint = "API keys look like svk_ followed by 8 characters, _ and 43 characters.";

/** What a refused key is told; the reference's error examples use these same strings. */
export const apiKeyRefusalMessages = {
  missing: "No API key was sent. Send it in the header `Authorization: Bearer <API key>`.",
  notBearer: "The Authorization header must have the form `Bearer <API key>`.",
  malformed: `The API key is malformed. ${keyShapeHint}`,
  unknown:
    "The API key is not known. Check that it was copied whole and that it belongs to this service.",
  revoked: (revokedAt: Date) =>
    `This API key was revoked at ${revokedAt.toISOString()}. Use another key of the account or create a new one.`,
} as const;

export type ApiAccess = { ok: true; principal: Principal } | { ok: false; error: ApiError };

/**
 * Key checks already made for a request (by the cached-answer lane, before the router), so the
 * middleware does not read the key a second time.
 */
export type CheckedAccess = WeakMap<Request, ApiAccess>;

/**
 * Rate-limit decisions already counted for a request (by the read lane, before a read that
 * failed), so the router answering it does not count it a second time.
 */
export type DecidedLimits = WeakMap<Request, RateLimitDecision>;

/**
 * The key and account checks of one request, from its Authorization header (undefined or null
 * when absent), in the order above. Shared by the middleware and the cached-answer lane.
 * Synchronous when the key check is (a remembered key row), so the lane can answer without a
 * promise turn.
 */
export function checkApiAccess(
  authenticator: KeyAuthenticator,
  header: string | null | undefined,
  now?: Date,
): ApiAccess | Promise<ApiAccess> {
  if (header === undefined || header === null) {
    return refused("not_authenticated", apiKeyRefusalMessages.missing);
  }
  const presented = bearerPattern.exec(header)?.[1];
  if (presented === undefined) {
    return refused("invalid_api_key", apiKeyRefusalMessages.notBearer);
  }
  const check = authenticator.check(presented, now);
  return check instanceof Promise ? check.then(accessFromCheck) : accessFromCheck(check);
}

function accessFromCheck(check: KeyCheck): ApiAccess {
  if (!check.ok) {
    const message =
      check.reason === "malformed"
        ? apiKeyRefusalMessages.malformed
        : check.reason === "revoked"
          ? apiKeyRefusalMessages.revoked(check.revokedAt)
          : apiKeyRefusalMessages.unknown;
    return refused("invalid_api_key", message);
  }
  const decision = decideApiAccess(check.access);
  if (!decision.allowed) return refused(decision.code, decision.message);
  // The check is the principal.
  return { ok: true, principal: check };
}

function refused(code: ErrorCode, message: string): ApiAccess {
  return { ok: false, error: new ApiError(code, message) };
}

/** The 429 for a request over its account's limit. */
export function rateLimitedError(limit: RateLimitDecision): ApiError {
  return new ApiError(
    "rate_limited",
    `Too many requests for this account: at most ${limit.limit} a minute across all its API keys. Retry after ${limit.resetSeconds} s.`,
    { ...rateLimitHeaders(limit), "Retry-After": String(limit.resetSeconds) },
  );
}

/** Bank data and errors about keys: never stored by shared caches or the browser. */
export const apiCacheControl = "no-store";

export function apiAuthMiddleware(deps: {
  authenticator: KeyAuthenticator;
  rateLimiter: AccountRateLimiter | undefined;
  checked?: CheckedAccess;
  decided?: DecidedLimits;
}): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    c.header("Cache-Control", apiCacheControl);
    const access =
      deps.checked?.get(c.req.raw) ??
      (await checkApiAccess(deps.authenticator, c.req.header("authorization")));
    if (!access.ok) throw access.error;
    if (deps.rateLimiter) {
      const limit =
        deps.decided?.get(c.req.raw) ??
        (await deps.rateLimiter.consume(access.principal.serviceAccountId));
      if (!limit.allowed) throw rateLimitedError(limit);
      for (const [name, value] of Object.entries(rateLimitHeaders(limit))) c.header(name, value);
    }
    c.set("principal", access.principal);
    await next();
  };
}
