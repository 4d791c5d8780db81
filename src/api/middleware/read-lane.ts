// The lane for /v1 reads no remembered answer serves (read-route.ts), taken after the cached
// lane's key check (which it leaves for the router, so a request handed on is not checked
// twice) and before the router: the same checks in the router's order (key and
// entitlement, then the rate limit, then the parameters), the route's own zod schemas, the same
// read, headers, entity tag and 304, request id, access-log line, metrics and remembering, without
// the router's per-request machinery (its context, routing, middleware chain and async
// validators: BENCHMARKS.md "Read API"). What the lane does not answer itself goes to the router,
// which answers it from scratch through the one error model: a path or query it does not take
// plainly, a parameter its schema refuses, the limit reached (a refusal counts nothing), and a
// read that failed (the router reads again; the limit it already counted is handed over, so the
// request counts once).
import { z } from "@hono/zod-openapi";
import { requestIdHeader } from "../../core/errors.ts";
import { createRequestRecorders } from "../../http/access-log.ts";
import { lateAnswerBody } from "../../http/late-answer.ts";
import type { RequestIds } from "../../http/request-id.ts";
import type { Logger } from "../../log/log.ts";
import type { Metrics } from "../../metrics/metrics.ts";
import { hasNamelessQueryParameter } from "../shared/params.ts";
import { type AnswerCache, cachedAnswerOf } from "./answer-store.ts";
import { apiCacheControl, type DecidedLimits, type Principal } from "./auth.ts";
import { etagHeader, ifNoneMatchMatches, notModifiedResponse } from "./etag.ts";
import { guidParamsCheck, takesAnyHeaderValues } from "./lane-checks.ts";
import { queryValueOf } from "./query-value.ts";
import { type AccountRateLimiter, type RateLimitDecision, rateLimitHeaders } from "./rate-limit.ts";
import { type LaneQueryCheck, type ReadRoute, readAnswerHeaders } from "./read-route.ts";

/**
 * Answers a GET under /v1/ whose key check passed, or returns undefined for the router.
 * `started` is when the request arrived (performance.now()), for the access log.
 */
export type ReadLane = (
  request: Request,
  principal: Principal,
  now: Date,
  started: number,
) => Promise<Response | undefined> | undefined;

type Parse = (value: unknown) => { success: true; data: unknown } | { success: false };

/** A route as the lane matches it: path segments, literal or a parameter's name. */
interface LaneRoute {
  segments: readonly { literal: string }[] | readonly ({ literal: string } | { param: string })[];
  /** The route pattern the access log and metrics name (as the router's matchedRoutes gives it). */
  pattern: string;
  params: Parse | undefined;
  query: LaneQueryCheck | undefined;
  /** The header schema's field names, when the route has one (a plain object schema). */
  headers: { parse: Parse; names: readonly string[] } | undefined;
  /** Whether its answers may be remembered at all (v1.ts: bank data only). */
  rememberable: boolean;
  read: ReadRoute["read"];
}

const parserOf =
  (schema: z.ZodType): Parse =>
  (value) =>
    schema.safeParse(value);

/**
 * A route the lane can take, or undefined for one it leaves to the router: a header schema that
 * is not a plain object (a strict one would refuse the headers the lane does not gather).
 */
function laneRoute(
  prefix: string,
  rememberedPrefixes: readonly string[],
  { route, read, laneQuery }: ReadRoute,
): LaneRoute | undefined {
  if (route.method !== "get") return undefined;
  const request = route.request ?? {};
  let headers: LaneRoute["headers"];
  if (request.headers !== undefined && !takesAnyHeaderValues(request.headers as z.ZodType)) {
    const schema = request.headers;
    if (!(schema instanceof z.ZodObject) || schema._zod.def.catchall !== undefined)
      return undefined;
    headers = { parse: parserOf(schema), names: Object.keys(schema.shape) };
  }
  const path = `${prefix}${route.path}`;
  return {
    segments: path
      .slice(1)
      .split("/")
      .map((part) => (part.startsWith("{") ? { param: part.slice(1, -1) } : { literal: part })),
    pattern: path.replaceAll(/\/{(.+?)}/g, "/:$1"),
    params: request.params
      ? (guidParamsCheck(request.params) ?? parserOf(request.params))
      : undefined,
    query: request.query ? (laneQuery ?? parserOf(request.query)) : undefined,
    headers,
    rememberable: rememberedPrefixes.some(
      (remembered) => route.path === remembered || route.path.startsWith(`${remembered}/`),
    ),
    read,
  };
}

export function createReadLane(deps: {
  /** Where the routes are mounted, e.g. "/v1". */
  prefix: string;
  routes: readonly ReadRoute[];
  answers: AnswerCache;
  /** The resources whose answers may be remembered (as the router's remembering middleware). */
  rememberedPrefixes: readonly string[];
  rateLimiter: AccountRateLimiter | undefined;
  /** Limits counted for a request the lane then leaves to the router (a failed read). */
  decided: DecidedLimits;
  requestIds: RequestIds;
  log: Logger;
  metrics: Metrics;
}): ReadLane {
  const utf8 = new TextEncoder();
  // By segment count; the router's first registered route wins on a tie, so the lane's too.
  const bySegments = new Map<number, LaneRoute[]>();
  for (const route of deps.routes) {
    const lane = laneRoute(deps.prefix, deps.rememberedPrefixes, route);
    if (!lane) continue;
    const list = bySegments.get(lane.segments.length) ?? [];
    list.push(lane);
    bySegments.set(lane.segments.length, list);
  }
  const recorderFor = createRequestRecorders(deps.log, deps.metrics);

  /** The route and its raw path parameters, or undefined. */
  const match = (path: string) => {
    const parts = path.slice(1).split("/");
    const candidates = bySegments.get(parts.length);
    if (!candidates) return undefined;
    for (const route of candidates) {
      const params: Record<string, string> = {};
      let matched = true;
      for (let i = 0; i < parts.length; i++) {
        const segment = route.segments[i] as { literal: string } | { param: string };
        const part = parts[i] as string;
        if ("literal" in segment) {
          if (segment.literal !== part) {
            matched = false;
            break;
          }
        } else if (part === "") {
          matched = false;
          break;
        } else params[segment.param] = part;
      }
      if (matched) return { route, params };
    }
    return undefined;
  };

  const answer = async (
    request: Request,
    principal: Principal,
    route: LaneRoute,
    input: { param: unknown; query: unknown },
    limit: RateLimitDecision | undefined,
    now: Date,
    started: number,
  ): Promise<Response | undefined> => {
    try {
      const { body, unremembered } = await route.read({ principal, ...input });
      const requestId = deps.requestIds.next();
      // Reads are answered after the request's turn of the event loop (PostgreSQL: a round
      // trip; SQLite: a transactions page, read with its turn's others after the next poll:
      // db/turn-batch.ts), so the body goes as bytes, in one write when large
      // (http/late-answer.ts); a remembered answer keeps them. Encoded once and tagged from the
      // bytes (the same tag as the text's, etag.ts): hashing the text converted it once per hash.
      const bytes = typeof body === "string" ? utf8.encode(body) : body;
      // The router's headers, in its order: request id, Cache-Control and the limit (auth.ts),
      // then the route's (read-route.ts).
      const headers = new Headers({
        [requestIdHeader]: requestId,
        "Cache-Control": apiCacheControl,
        ...(limit ? rateLimitHeaders(limit) : {}),
        ...readAnswerHeaders(bytes),
      });
      const etag = headers.get(etagHeader) as string;
      let response: Response;
      if (ifNoneMatchMatches(request.headers.get("if-none-match"), etag)) {
        response = notModifiedResponse(headers);
      } else {
        response = new Response(lateAnswerBody(bytes), { status: 200, headers });
        if (
          route.rememberable &&
          !unremembered &&
          deps.answers.askedBefore(principal, request.url, now)
        ) {
          const remembered = cachedAnswerOf(headers, bytes, route.pattern);
          if (remembered) deps.answers.set(principal, request.url, now, remembered);
        }
      }
      recorderFor({
        method: "GET",
        route: route.pattern,
        status: response.status,
        keyId: principal.keyId,
      })(performance.now() - started, requestId);
      return response;
    } catch {
      // The router reads again and answers the failure; the request was counted here.
      if (limit) deps.decided.set(request, limit);
      return undefined;
    }
  };

  return (request, principal, now, started) => {
    // A body on a GET goes through the router's body limit.
    if (request.body !== null) return undefined;
    const url = request.url;
    const pathStart = url.indexOf("/", url.indexOf("//") + 2);
    const queryStart = url.indexOf("?", pathStart);
    const path = queryStart < 0 ? url.slice(pathStart) : url.slice(pathStart, queryStart);
    // Percent-encoded paths are decoded by the router; a fragment never reaches a server.
    if (path.includes("%") || url.includes("#")) return undefined;
    const found = match(path);
    if (!found) return undefined;
    const { route } = found;
    if (queryStart >= 0 && hasNamelessQueryParameter(url.slice(queryStart + 1))) return undefined;
    const param = route.params ? route.params(found.params) : { success: true as const, data: {} };
    if (!param.success) return undefined;
    const query = route.query
      ? route.query(queryValueOf(url, queryStart))
      : { success: true as const, data: {} };
    if (!query.success) return undefined;
    if (route.headers) {
      const value: Record<string, string> = {};
      for (const name of route.headers.names) {
        const header = request.headers.get(name);
        if (header !== null) value[name] = header;
      }
      if (!route.headers.parse(value).success) return undefined;
    }
    const input = { param: param.data, query: query.data };
    if (!deps.rateLimiter) return answer(request, principal, route, input, undefined, now, started);
    const limit = deps.rateLimiter.consume(principal.serviceAccountId, now);
    const decided = (limit: RateLimitDecision) => {
      // A refusal counts nothing, so the router's own check refuses this request the same way.
      if (!limit.allowed) return undefined;
      return answer(request, principal, route, input, limit, now, started);
    };
    return limit instanceof Promise ? limit.then(decided, () => undefined) : decided(limit);
  };
}
