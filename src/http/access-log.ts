// One access-log line and one metrics observation per request answered by the Hono app.
//
// What a line holds: method, the matched route pattern
// (`/v1/accounts/:account_id/transactions`, never the raw path, so ids stay out and the log is
// easy to aggregate), status, duration in ms, the request id the client saw in Svc-Request-Id,
// the id of the API key (/v1) or of the signed-in user (portal): ids, not credentials. Never the query string
// (transaction cursors and windows are the consumer's business, and a future parameter might
// hold something sensitive), never a header (Authorization, Cookie), never a body.
// Probes (/healthz, /readyz) and scrapes (/metrics) come every few seconds, so they are logged at
// debug level only; they are still counted in the metrics.
import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import type { Logger } from "../log/log.ts";
import type { Metrics } from "../metrics/metrics.ts";

/** The route label of a request that matched no handler (404s of unknown paths). */
const unmatchedRoute = "unmatched";
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

/** What requests recorded by one recorder share. */
export interface RequestKind {
  method: string;
  /** The route pattern (see routePattern), never the raw path. */
  route: string;
  status: number;
  /** The API key's id (/v1). */
  keyId?: string | undefined;
  /** The signed-in user's id (portal). */
  userId?: string | undefined;
}

export type RequestRecorder = (durationMs: number, requestId: string | undefined) => void;

/**
 * Records requests of one kind: the access-log line and the metrics, with the labels and the
 * fixed fields prepared once (the cached-answer lane keeps one per answer and key).
 */
export function createRequestRecorder(
  log: Logger,
  metrics: Metrics,
  kind: RequestKind,
): RequestRecorder {
  const { method, route, status } = kind;
  const observe = metrics.httpRequestObserver(method, route, status);
  const fixed: Record<string, unknown> = { method, route, status };
  if (kind.keyId) fixed.keyId = kind.keyId;
  if (kind.userId) fixed.userId = kind.userId;
  const line = log.prepare(quietRoutes.has(route) ? "debug" : "info", "request", fixed);
  return (durationMs, requestId) => {
    observe(durationMs / 1000);
    line({ durationMs: Math.round(durationMs * 10) / 10, requestId });
  };
}

/** Kinds of request whose recorders the access log keeps at most (routes x statuses x keys). */
const maxKeptRecorders = 1_024;

/**
 * The recorder of each kind of request (method, route, status, key or user), prepared once:
 * preparing a line's fixed part and its metric labels cost more than writing the line.
 */
export function createRequestRecorders(
  log: Logger,
  metrics: Metrics,
): (kind: RequestKind) => RequestRecorder {
  const recorders = new Map<string, RequestRecorder>();
  return (kind) => {
    const kindKey = `${kind.method} ${kind.route} ${kind.status} ${kind.keyId ?? ""} ${kind.userId ?? ""}`;
    let recorder = recorders.get(kindKey);
    if (!recorder) {
      if (recorders.size >= maxKeptRecorders) recorders.clear();
      recorder = createRequestRecorder(log, metrics, kind);
      recorders.set(kindKey, recorder);
    }
    return recorder;
  };
}

export function accessLogMiddleware(log: Logger, metrics: Metrics): MiddlewareHandler {
  const recorderFor = createRequestRecorders(log, metrics);
  return async (c, next) => {
    const started = performance.now();
    await next();
    const principal = c.get("principal" as never) as { keyId?: string } | undefined;
    const portalUser = c.get("portalUser" as never) as { userId?: string } | undefined;
    recorderFor({
      method: c.req.method,
      route: routePattern(c),
      status: c.res.status,
      keyId: principal?.keyId,
      userId: portalUser?.userId,
    })(performance.now() - started, c.get("requestId"));
  };
}
