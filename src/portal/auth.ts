import type { MiddlewareHandler } from "hono";
import { accountDisabledNotice } from "../accounts/service-accounts.ts";
import { type PortalPrincipal, resolveSession } from "../accounts/sessions.ts";
import type { Clock } from "../core/clock.ts";
import { ApiError } from "../core/errors.ts";
import type { Db } from "../db/store.ts";
import type { SessionCookie } from "../http/cookies.ts";

declare module "hono" {
  interface ContextVariableMap {
    portalUser: PortalPrincipal;
  }
}

/**
 * Requires a live session. A user still on a one-time password may only reach the routes
 * that let them replace it (`allowOneTimePassword`).
 */
export function requireSession(
  db: Db,
  clock: Clock,
  cookie: SessionCookie,
  options: { allowOneTimePassword?: boolean } = {},
): MiddlewareHandler {
  return async (c, next) => {
    const token = cookie.read(c);
    const principal = token ? await resolveSession(db, clock, token) : undefined;
    if (!principal) throw new ApiError("session_required", "Sign in to continue.");
    if (principal.mustChangePassword && !options.allowOneTimePassword) {
      throw new ApiError(
        "forbidden",
        "Choose a new password before continuing (your password was a one-time password).",
      );
    }
    c.set("portalUser", principal);
    await next();
  };
}

export const requireOperator: MiddlewareHandler = async (c, next) => {
  if (!c.get("portalUser")?.isOperator) {
    throw new ApiError("forbidden", "This page is for operators of this Svc instance.");
  }
  await next();
};

/**
 * A disabled service account keeps a read-only portal (docs/decisions.md). Its users may sign in
 * and read (and see why), but nothing that creates or changes keys, endpoints or connections
 * works. The
 * flag is read with the session on every request, so open sessions see a change at once.
 */
export const refuseChangesWhenDisabled: MiddlewareHandler = async (c, next) => {
  const method = c.req.method;
  if (method !== "GET" && method !== "HEAD" && c.get("portalUser")?.accountDisabled) {
    throw new ApiError("account_disabled", accountDisabledNotice);
  }
  await next();
};
