// Successful /v1 reads, cached per service account and URL for as long as the database has not
// changed (see db/data-generation.ts): the same answer as a fresh read, without rebuilding 100
// rows per request. Errors are never cached. Runs after authentication, so every request still
// has its key checked and its rate limit counted.
import type { MiddlewareHandler } from "hono";
import type { Clock } from "../clock.ts";
import type { GenerationCache } from "../db/data-generation.ts";
import type { ApiEnv } from "./auth.ts";

const jsonHeaders = { "Content-Type": "application/json" };

export function responseCacheMiddleware(deps: {
  cache: GenerationCache<string>;
  clock: Clock;
}): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    if (c.req.method !== "GET") return next();
    // The default transactions window ends "today", so the day is part of what a URL means.
    const day = deps.clock.now().toISOString().slice(0, 10);
    const principal = c.get("principal");
    const key = `${principal.serviceAccountId} ${day} ${c.req.url}`;
    // The generation the key check saw: an answer cached under it cannot predate any commit.
    const generation = principal.dataGeneration;
    const cached = deps.cache.get(key, generation);
    if (cached !== undefined) return c.body(cached, 200, jsonHeaders);
    await next();
    if (c.res.status === 200) deps.cache.set(key, generation, await c.res.clone().text());
  };
}
