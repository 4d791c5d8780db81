// The /v1 read API: public reference (openapi.json, docs) and the key-authenticated resources.
// Authentication is mounted on whole resource prefixes, so a route added under them cannot forget
// it (test/api/every-route.test.ts runs every documented route against bad keys); a path outside
// every resource is 404 with or without a key.
import { OpenAPIHono } from "@hono/zod-openapi";
import { type Context, Hono } from "hono";
import type { Config } from "../config/config.ts";
import type { Clock } from "../core/clock.ts";
import type { AnyDatabase, Db } from "../db/open.ts";
import { notFoundHandler } from "../http/error-handler.ts";
import type { RequestIds } from "../http/request-id.ts";
import { createKeyAuthenticator } from "../keys/authenticate.ts";
import type { Logger } from "../log/log.ts";
import type { Metrics } from "../metrics/metrics.ts";
import type { OutboxSignal } from "../webhooks/events/outbox-signal.ts";
import { createAccountReads } from "./accounts/read.ts";
import { accountReadRoutes } from "./accounts/route.ts";
import { createConnectionReads } from "./connections/read.ts";
import { connectionReadRoutes } from "./connections/route.ts";
import { createEventReads } from "./events/read.ts";
import { eventReadRoutes, registerEventStreamRoute } from "./events/route.ts";
import { createEventStreams, type EventStreamOptions } from "./events/stream.ts";
import { sharedStreamSlots } from "./events/stream-slots.ts";
import { type CachedAnswerLane, createCachedAnswerLane } from "./middleware/answer-lane.ts";
import { createAnswerCache, rememberAnswersMiddleware } from "./middleware/answer-store.ts";
import {
  type ApiEnv,
  apiAuthMiddleware,
  type CheckedAccess,
  checkApiAccess,
  type DecidedLimits,
} from "./middleware/auth.ts";
import {
  entityTagMiddleware,
  entityTagOf,
  etagHeader,
  ifNoneMatchMatches,
  notModifiedResponse,
} from "./middleware/etag.ts";
import { createReadLane } from "./middleware/read-lane.ts";
import { registerRead } from "./middleware/read-route.ts";
import { createSharedRateLimiter } from "./middleware/shared-rate-limit.ts";
import { createDocsPage, type DocsPage } from "./reference/docs-page.ts";
import { buildOpenApiDocument, type OpenApiDocument } from "./reference/openapi.ts";
import { type ScalarBundle, scalarBundle } from "./reference/scalar-bundle.ts";
import { refuseNamelessQueryParameters, validationHook } from "./shared/params.ts";
import { createTransactionChangeReads } from "./transaction-changes/read.ts";
import { transactionChangeReadRoutes } from "./transaction-changes/route.ts";
import { createTransactionReads } from "./transactions/read.ts";
import { transactionReadRoutes } from "./transactions/route.ts";

/** Every resource lives under one of these; each one's whole subtree requires a key. */
const resourcePrefixes = ["/accounts", "/connections", "/events"] as const;
/**
 * Resources whose answers may be remembered (api/middleware/answer-store.ts): bank data only,
 * whose changes move the account's data generation. Events do not (a test send writes one
 * without touching bank data), and a stream is never a stored answer.
 */
const rememberedPrefixes: readonly string[] = ["/accounts", "/connections"];
/** Answers remembered at most: 512, and 32 MiB of bodies (a 100-row page is ~30 KB). */
const answerCacheLimits = { maxEntries: 512, maxBytes: 32 * 1024 * 1024 };

export interface V1 {
  app: Hono;
  /**
   * Answers a /v1 read from the remembered answers or through the read lane (read-lane.ts), or
   * returns undefined for the router (see api/middleware/answer-lane.ts).
   */
  serveCached: CachedAnswerLane;
  /** Whether `response` was a remembered answer. */
  fromCache(response: Response): boolean;
  /** Ends every open event stream and refuses new ones (server shutdown). */
  closeStreams(): void;
  /** Gives back the read-API allowance this process holds unused (server shutdown). */
  giveBackAllowance(): Promise<void>;
}

/** What /v1 needs; the composition root passes its services, which have this shape. */
export interface ApiDeps {
  config: Config;
  /** Its change counter (SQLite) spares key reads between commits; isOpen for the streams. */
  database: Pick<AnyDatabase, "changeCounter" | "isOpen">;
  db: Db;
  clock: Clock;
  log: Logger;
  /** The event stream wakes on new events. */
  outbox: OutboxSignal;
  metrics: Metrics;
}

export function createV1App(
  services: ApiDeps,
  deps: {
    requestIds: RequestIds;
    eventStreams?: Partial<EventStreamOptions>;
    /** See AppOptions.processId. */
    processId?: string;
  },
): V1 {
  const { config, db, clock, log } = services;
  const resources = new OpenAPIHono<ApiEnv>({ defaultHook: validationHook });
  const authenticator = createKeyAuthenticator(db, clock, {
    ...(services.database.changeCounter ? { changeCounter: services.database.changeCounter } : {}),
    onTouchError: (error) => log.warn("recording when an API key was last used failed", { error }),
  });
  const checked: CheckedAccess = new WeakMap();
  const decided: DecidedLimits = new WeakMap();
  // Per account, held across every process on the database (middleware/shared-rate-limit.ts).
  const rateLimiter =
    config.apiRateLimitPerMinute > 0
      ? createSharedRateLimiter(
          {
            db,
            clock,
            isOpen: () => services.database.isOpen(),
            onError: (error) => log.warn("reserving read-API allowance failed", { error }),
          },
          config.apiRateLimitPerMinute,
        )
      : undefined;
  const answers = createAnswerCache(answerCacheLimits);
  const auth = apiAuthMiddleware({ authenticator, rateLimiter, checked, decided });
  const remember = rememberAnswersMiddleware({ answers, clock });
  // After `remember`, so the answers it keeps carry their tag and a 304 is never kept.
  const tag = entityTagMiddleware();
  // Hono's `/accounts/*` also matches `/accounts` itself.
  for (const prefix of resourcePrefixes) {
    const remembered = rememberedPrefixes.includes(prefix) ? [remember] : [];
    resources.use(`${prefix}/*`, auth, refuseNamelessQueryParameters, ...remembered, tag);
  }
  // Each resource's reads prepare their statements once, here, not per request.
  const accountReads = createAccountReads(db);
  const eventReads = createEventReads(db);
  const events = eventReadRoutes(eventReads);
  // Every GET read of the resources, answered by the router and by the read lane alike.
  const readRoutes = [
    ...accountReadRoutes(accountReads),
    ...transactionChangeReadRoutes(createTransactionChangeReads(db, accountReads), {
      clock,
      retentionDays: config.retentionDays,
    }),
    ...transactionReadRoutes(createTransactionReads(db, accountReads), clock),
    ...connectionReadRoutes(createConnectionReads(db)),
    events.list,
    events.get,
  ];
  const streams = createEventStreams({
    reads: eventReads,
    outbox: services.outbox,
    log,
    checkAccess: async (authorization) => {
      const access = await checkApiAccess(authenticator, authorization);
      return access.ok ? undefined : access.error;
    },
    ...(deps.processId
      ? {
          slots: sharedStreamSlots({
            db,
            clock,
            processId: deps.processId,
            onReleaseError: (error) =>
              log.warn("freeing an event stream's place failed", { error }),
          }),
        }
      : {}),
    ...(deps.eventStreams ? { options: deps.eventStreams } : {}),
  });
  // In the reference's order; the stream before /events/{event_id}, which would take "stream".
  for (const route of readRoutes) {
    registerRead(resources, route);
    if (route === events.list) registerEventStreamRoute(resources, streams);
  }

  // The OpenAPI document is built on its first use (/openapi.json or /docs), not at start:
  // generating it from the routes' schemas was the largest single cost of starting the service.
  let built: { document: OpenApiDocument; json: string; headers: Headers } | undefined;
  const openApi = () => {
    if (!built) {
      const document = buildOpenApiDocument(resources, {
        baseUrl: config.baseUrl,
        rateLimitPerMinute: config.apiRateLimitPerMinute,
        retentionDays: config.retentionDays,
      });
      const json = JSON.stringify(document);
      built = { document, json, headers: publicHeaders(json, "application/json") };
    }
    return built;
  };
  // The reference page and Scalar's bundle are loaded on the first visit to /docs, so serving
  // the API (and every CLI command) never pays for them.
  let docs: Promise<{ bundle: ScalarBundle; page: DocsPage }> | undefined;
  const docsAssets = () => {
    docs ??= scalarBundle()
      .then((bundle) => ({
        bundle,
        page: createDocsPage(openApi().document, {
          scriptPath: `docs/${bundle.fileName}`,
          apiOrigin: new URL(config.baseUrl).origin,
        }),
      }))
      .catch((error: unknown) => {
        docs = undefined; // answered 500 now, tried again on the next visit
        throw error;
      });
    return docs;
  };

  const app = new Hono();
  // Registered before the resources, so these public pages answer without a key. Conditional
  // like every /v1 GET; their tags are computed once.
  const publicHeaders = (body: string, contentType: string, extra: Record<string, string> = {}) =>
    new Headers({ "Content-Type": contentType, [etagHeader]: entityTagOf(body), ...extra });
  const conditional = (c: Context, body: string, headers: Headers) =>
    ifNoneMatchMatches(c.req.header("if-none-match"), headers.get(etagHeader) as string)
      ? notModifiedResponse(headers)
      : new Response(body, { status: 200, headers });
  app.get("/openapi.json", (c) => {
    const { json, headers } = openApi();
    return conditional(c, json, headers);
  });
  let docsPageHeaders: Headers | undefined;
  app.get("/docs", async (c) => {
    const { page } = await docsAssets();
    docsPageHeaders ??= publicHeaders(page.html, "text/html; charset=UTF-8", {
      "Content-Security-Policy": page.contentSecurityPolicy,
      "Cache-Control": "no-cache",
      "X-Content-Type-Options": "nosniff",
      "Referrer-Policy": "no-referrer",
    });
    return conditional(c, page.html, docsPageHeaders);
  });
  // The renderer's script: its name changes with its content, so it is cached for good.
  app.get("/docs/:file", async (c) => {
    const { bundle } = await docsAssets();
    if (c.req.param("file") !== bundle.fileName) return notFoundHandler(c);
    const { body, encoding } = await bundle.encoded(c.req.header("accept-encoding"));
    return c.body(body as Uint8Array<ArrayBuffer>, 200, {
      "Content-Type": "text/javascript; charset=utf-8",
      "Cache-Control": "public, max-age=31536000, immutable",
      "X-Content-Type-Options": "nosniff",
      Vary: "Accept-Encoding",
      ...(encoding ? { "Content-Encoding": encoding } : {}),
    });
  });
  app.route("/", resources);
  const served = new WeakSet<Response>();
  const serveCached = createCachedAnswerLane({
    answers,
    checked,
    authenticator,
    rateLimiter,
    clock,
    requestIds: deps.requestIds,
    log: services.log,
    metrics: services.metrics,
    served,
    fresh: createReadLane({
      prefix: "/v1",
      routes: readRoutes,
      answers,
      rememberedPrefixes,
      rateLimiter,
      decided,
      requestIds: deps.requestIds,
      log: services.log,
      metrics: services.metrics,
    }),
  });
  return {
    app,
    serveCached,
    fromCache: (response) => served.has(response),
    closeStreams: () => streams.closeAll(),
    giveBackAllowance: async () => rateLimiter?.close(),
  };
}
