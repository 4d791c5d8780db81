// Assembles the HTTP application: request ids, the access log and HTTP metrics, one error
// model, /metrics, and each feature's routes.
import type { HTMLBundle } from "bun";
import { Hono } from "hono";
import type { EventStreamOptions } from "../api/events/stream.ts";
import { createV1App } from "../api/v1.ts";
import { accessLogMiddleware } from "../http/access-log.ts";
import { createAllowedMethods, methodNotAllowed } from "../http/allowed-methods.ts";
import { bodyLimitMiddleware, maxJsonBodyBytes } from "../http/body-limit.ts";
import { withCanonicalIds } from "../http/canonical-ids.ts";
import { createErrorHandler, notFoundHandler } from "../http/error-handler.ts";
import { peerOfArrival } from "../http/peer.ts";
import { createRequestIds, requestIdMiddleware } from "../http/request-id.ts";
import { securityHeadersMiddleware } from "../http/security-headers.ts";
import { createPortalApi } from "../portal/api.ts";
import { connectCallbackRoutes } from "../portal/bank-callback-page.ts";
import { healthRoutes } from "./health.ts";
import { metricsRoutes } from "./metrics-route.ts";
import { createOperatorApi } from "./operator-api.ts";
import { createPortalPage } from "./portal-page.ts";
import type { Services } from "./services.ts";

/** The operator import routes, which keep their own, larger limit (portal/routes/import-routes.ts). */
const importPaths = new Set(["/operator/import", "/portal/api/operator/import"]);
const isImportPath = (path: string) => importPaths.has(path.replace(/\/+$/, ""));

export interface AppOptions {
  /** Whether start-up has finished (for /readyz); true when not given. */
  isReady?: () => boolean;
  /** Event-stream timing and limits (tests shorten the heartbeat); defaults otherwise. */
  eventStreams?: Partial<EventStreamOptions>;
  /** The portal's page (admin-ui/index.html), answered at `/` with its assets (portal-page.ts). */
  portalPage?: HTMLBundle;
  /**
   * This serving process's id (src/cluster/processes.ts): open event streams are then counted
   * per account across every process on the database; without it, in this process alone.
   */
  processId?: string;
}

export interface HttpApp {
  app: Hono;
  /**
   * What the listener calls: remembered /v1 answers first (api/middleware/answer-lane.ts), then /v1 reads
   * (api/middleware/read-lane.ts), then the app.
   */
  /** `server` is Bun's, passed on to Hono (getConnInfo reads the peer address from it). */
  fetch(request: Request, server?: unknown): Response | Promise<Response>;
  /** Whether `response` was a remembered answer (served before the router), for diagnostics. */
  fromCache(response: Response): boolean;
  /** Ends open event streams (/v1/events/stream), so a graceful stop does not wait on them. */
  closeStreams(): void;
  /** Gives back the read-API allowance this process holds unused, for the other processes. */
  giveBackAllowance(): Promise<void>;
}

export function createHttpApp(services: Services, options: AppOptions = {}): HttpApp {
  const requestIds = createRequestIds();
  const v1 = createV1App(services, {
    requestIds,
    eventStreams: options.eventStreams,
    processId: options.processId,
  });
  const app = new Hono();
  app.use("*", requestIdMiddleware(requestIds));
  app.use("*", accessLogMiddleware(services.log, services.metrics));
  app.use("*", securityHeadersMiddleware());
  app.use("*", bodyLimitMiddleware({ maxBytes: maxJsonBodyBytes, exempt: isImportPath }));
  app.onError(createErrorHandler(services.log));
  const portalPage = options.portalPage ? createPortalPage(options.portalPage) : undefined;
  const allowedMethods = createAllowedMethods(() => app.routes);
  app.notFound(async (c) => {
    const method = c.req.method;
    const page =
      portalPage && (method === "GET" || method === "HEAD") && (await portalPage.answer(c));
    if (page) return page;
    const allowed = allowedMethods(c.req.path);
    return allowed.length > 0 ? methodNotAllowed(c, allowed) : notFoundHandler(c);
  });
  app.route("/", healthRoutes(services.database, options.isReady));
  app.route("/", metricsRoutes(services.metrics, services.config.metricsTokenFile));
  app.route("/portal/api", createPortalApi(services));
  app.route("/operator", createOperatorApi(services));
  app.route("/v1", v1.app);
  app.route("/", connectCallbackRoutes(services));
  return {
    app,
    fetch: (incoming, server) => {
      const request = withCanonicalIds(incoming);
      const cached = v1.serveCached(request);
      // Only the router needs the peer (remembered answers never ask for it).
      if (cached === undefined) return app.fetch(request, peerOfArrival(server, incoming));
      if (cached instanceof Response) return cached;
      return cached.then((answer) => answer ?? app.fetch(request, peerOfArrival(server, incoming)));
    },
    fromCache: (response) => v1.fromCache(response),
    closeStreams: () => v1.closeStreams(),
    giveBackAllowance: () => v1.giveBackAllowance(),
  };
}

/** The Hono app alone (in-process tests and tools); the listener uses createHttpApp. */
export function createApp(services: Services, options: AppOptions = {}): Hono {
  return createHttpApp(services, options).app;
}
