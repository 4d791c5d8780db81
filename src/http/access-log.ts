// One access-log line and one metrics observation per request answered by the Hono app.
//
// What a line holds (decided for issue 7): method, the matched route pattern
// (`/v1/accounts/:account_id/transactions`, never the raw path, so ids stay out and the log is
// easy to aggregate), status, duration in ms, the request id the client saw in Svc-Request-Id,
// the id of the API key (/v1) or of the signed-in user (portal): ids, not credentials. Never the query string
// (transaction cursors and windows are the consumer's business, and a future parameter might
// hold something sensitive), never a header (Authorization, Cookie), never a body.
// Probes (/healthz, /readyz) and scrapes (/metrics) come every few seconds, so they are logged at
// debug level only; they are still counted in the metrics.
import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import type { Logger } from "../log.ts";
import type { Metrics } from "../metrics/metrics.ts";

/** The route label of a request that matched no handler (404s of unknown paths). */
export const unmatchedRoute = "unmatched";
const quietRoutes = new Set(["/healthz", "/readyz", "/metrics"]);

/**
 * The pattern of the handler that answered: the last matched route that is not a middleware
 * (middleware is registered for every method, handlers for one).
 */
export function routePattern(c: Context): string {
  const routes = matchedRoutes(c);
  for (let i = routes.length - 1; i >= 0; i--) {
    const route = routes[i];
    if (route && route.method !== "ALL") return route.path;
  }
  return unmatchedRoute;
}

/** What one answered request leaves in the access log and the HTTP metrics. */
export interface AnsweredRequest {
  method: string;
  /** The route pattern (see routePattern), never the raw path. */
  route: string;
  status: number;
  durationMs: number;
  requestId: string | undefined;
  /** The API key's id (/v1). */
  keyId?: string | undefined;
  /** The signed-in user's id (portal). */
  userId?: string | undefined;
}

/** Writes the access-log line and counts the request; shared by every path that answers. */
export function recordAnsweredRequest(log: Logger, metrics: Metrics, answered: AnsweredRequest) {
  const { method, route, status, durationMs } = answered;
  metrics.httpRequest({ method, route, status }, durationMs / 1000);
  const fields: Record<string, unknown> = {
    method,
    route,
    status,
    durationMs: Math.round(durationMs * 10) / 10,
    requestId: answered.requestId,
  };
  if (answered.keyId) fields.keyId = answered.keyId;
  if (answered.userId) fields.userId = answered.userId;
  if (quietRoutes.has(route)) log.debug("request", fields);
  else log.info("request", fields);
}

export function accessLogMiddleware(log: Logger, metrics: Metrics): MiddlewareHandler {
  return async (c, next) => {
    const started = performance.now();
    await next();
    // Who made the request, as ids set by the /v1 key check or the portal's session check.
    const principal = c.get("principal" as never) as { keyId?: string } | undefined;
    const portalUser = c.get("portalUser" as never) as { userId?: string } | undefined;
    recordAnsweredRequest(log, metrics, {
      method: c.req.method,
      route: routePattern(c),
      status: c.res.status,
      durationMs: performance.now() - started,
      requestId: c.get("requestId"),
      keyId: principal?.keyId,
      userId: portalUser?.userId,
    });
  };
}
