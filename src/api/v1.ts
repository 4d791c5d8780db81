// The /v1 read API: public reference (openapi.json, docs) and the key-authenticated resources.
// Authentication is mounted on whole resource prefixes, so a route added under them cannot forget
// it (test/api/every-route.test.ts runs every documented route against bad keys); a path outside
// every resource is 404 with or without a key.
import { OpenAPIHono } from "@hono/zod-openapi";
import { Hono } from "hono";
import { createDataGeneration, createGenerationCache } from "../db/data-generation.ts";
import { createKeyAuthenticator } from "../keys/authenticate.ts";
import type { Services } from "../services.ts";
import { type ApiEnv, apiAuthMiddleware } from "./auth.ts";
import { renderReferencePage } from "./docs-page.ts";
import { buildOpenApiDocument } from "./openapi.ts";
import { validationHook } from "./params.ts";
import { createKeyRateLimiter } from "./rate-limit.ts";
import { createBankReads } from "./reads/bank-reads.ts";
import { responseCacheMiddleware } from "./response-cache.ts";
import { registerAccountRoutes } from "./routes/accounts.ts";
import { registerConnectionRoutes } from "./routes/connections.ts";
import { registerTransactionRoutes } from "./routes/transactions.ts";

/** Every resource lives under one of these; each one's whole subtree requires a key. */
export const resourcePrefixes = ["/accounts", "/connections"] as const;
/** Cached answers kept at most (a 100-row page is ~30 KB). */
const responseCacheEntries = 512;

export function createV1App(services: Services): Hono {
  const { config, database, clock } = services;
  const resources = new OpenAPIHono<ApiEnv>({ defaultHook: validationHook });
  const generation = createDataGeneration(database);
  const auth = apiAuthMiddleware({
    authenticator: createKeyAuthenticator(database, clock, generation),
    rateLimiter:
      config.apiRateLimitPerMinute > 0
        ? createKeyRateLimiter(clock, config.apiRateLimitPerMinute)
        : undefined,
  });
  // Hono's `/accounts/*` also matches `/accounts` itself.
  const cache = responseCacheMiddleware({
    cache: createGenerationCache<string>(responseCacheEntries),
    clock,
  });
  for (const prefix of resourcePrefixes) resources.use(`${prefix}/*`, auth, cache);
  const reads = createBankReads(database);
  registerAccountRoutes(resources, reads);
  registerTransactionRoutes(resources, reads, clock);
  registerConnectionRoutes(resources, reads);

  const document = buildOpenApiDocument(resources, {
    baseUrl: config.baseUrl,
    rateLimitPerMinute: config.apiRateLimitPerMinute,
  });
  const documentJson = JSON.stringify(document);
  const referencePage = renderReferencePage(document);

  const v1 = new Hono();
  // Registered before the resources, so these public pages answer without a key.
  v1.get("/openapi.json", (c) => c.body(documentJson, 200, { "Content-Type": "application/json" }));
  v1.get("/docs", (c) => c.html(referencePage));
  v1.route("/", resources);
  return v1;
}
