// The /v1 read API: public reference (openapi.json, docs) and the key-authenticated resources.
// Authentication is mounted on whole resource prefixes, so a route added under them cannot forget
// it (test/api/every-route.test.ts runs every documented route against bad keys); a path outside
// every resource is 404 with or without a key.
import { OpenAPIHono } from "@hono/zod-openapi";
import { Hono } from "hono";
import type { RequestIds } from "../http/request-id.ts";
import { createKeyAuthenticator } from "../keys/authenticate.ts";
import type { Services } from "../services.ts";
import { createAnswerCache, rememberAnswersMiddleware } from "./answer-cache.ts";
import { type ApiEnv, apiAuthMiddleware, type CheckedAccess } from "./auth.ts";
import { type CachedAnswerLane, createCachedAnswerLane } from "./cached-answers.ts";
import { renderReferencePage } from "./docs-page.ts";
import { buildOpenApiDocument } from "./openapi.ts";
import { validationHook } from "./params.ts";
import { createBankReads } from "./reads/bank-reads.ts";
import { registerAccountRoutes } from "./routes/accounts.ts";
import { registerConnectionRoutes } from "./routes/connections.ts";
import { registerTransactionRoutes } from "./routes/transactions.ts";
import { createSharedKeyRateLimiter } from "./shared-rate-limit.ts";

/** Every resource lives under one of these; each one's whole subtree requires a key. */
export const resourcePrefixes = ["/accounts", "/connections"] as const;
/** Answers remembered at most: 512, and 32 MiB of bodies (a 100-row page is ~30 KB). */
const answerCacheLimits = { maxEntries: 512, maxBytes: 32 * 1024 * 1024 };

export interface V1 {
  app: Hono;
  /** Answers a request from the remembered answers, or returns undefined (see cached-answers.ts). */
  serveCached: CachedAnswerLane;
}

export function createV1App(services: Services, deps: { requestIds: RequestIds }): V1 {
  const { config, db, clock, log } = services;
  const resources = new OpenAPIHono<ApiEnv>({ defaultHook: validationHook });
  const authenticator = createKeyAuthenticator(db, clock, {
    ...(services.database.changeCounter ? { changeCounter: services.database.changeCounter } : {}),
    onTouchError: (error) => log.warn("recording when an API key was last used failed", { error }),
  });
  const checked: CheckedAccess = new WeakMap();
  // Shared by every process on the database (shared-rate-limit.ts), decided in memory.
  const rateLimiter =
    config.apiRateLimitPerMinute > 0
      ? createSharedKeyRateLimiter(
          {
            db,
            clock,
            isOpen: () => services.database.isOpen(),
            onSyncError: (error) => log.warn("sharing the read-API rate limit failed", { error }),
          },
          config.apiRateLimitPerMinute,
        )
      : undefined;
  const answers = createAnswerCache(answerCacheLimits);
  const auth = apiAuthMiddleware({ authenticator, rateLimiter, checked });
  const remember = rememberAnswersMiddleware({ answers, clock });
  // Hono's `/accounts/*` also matches `/accounts` itself.
  for (const prefix of resourcePrefixes) resources.use(`${prefix}/*`, auth, remember);
  const reads = createBankReads(db);
  registerAccountRoutes(resources, reads);
  registerTransactionRoutes(resources, reads, clock);
  registerConnectionRoutes(resources, reads);

  const document = buildOpenApiDocument(resources, {
    baseUrl: config.baseUrl,
    rateLimitPerMinute: config.apiRateLimitPerMinute,
  });
  const documentJson = JSON.stringify(document);
  const referencePage = renderReferencePage(document);

  const app = new Hono();
  // Registered before the resources, so these public pages answer without a key.
  app.get("/openapi.json", (c) =>
    c.body(documentJson, 200, { "Content-Type": "application/json" }),
  );
  app.get("/docs", (c) => c.html(referencePage));
  app.route("/", resources);
  const serveCached = createCachedAnswerLane({
    answers,
    checked,
    authenticator,
    rateLimiter,
    clock,
    requestIds: deps.requestIds,
    log: services.log,
    metrics: services.metrics,
  });
  return { app, serveCached };
}
