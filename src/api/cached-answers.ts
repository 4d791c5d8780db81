// The lane for /v1 requests whose answer is remembered (answer-cache.ts), served before the
// router: the same key check, entitlement check and rate limit as the middleware chain
// (checkApiAccess, the same limiter), the same headers, request id, access-log line and metrics,
// without the per-request cost of the middleware chain (BENCHMARKS.md "Read API"). Anything
// else (no answer remembered, any refusal, the limit reached, any failure) returns undefined and
// goes to the router, which answers it from scratch, errors included.
import type { Clock } from "../clock.ts";
import { createRequestRecorder, type RequestRecorder } from "../http/access-log.ts";
import { requestIdHeader } from "../http/errors.ts";
import type { RequestIds } from "../http/request-id.ts";
import type { KeyAuthenticator } from "../keys/authenticate.ts";
import type { Logger } from "../log.ts";
import type { Metrics } from "../metrics/metrics.ts";
import type { AnswerCache, CachedAnswer } from "./answer-cache.ts";
import { type CheckedAccess, checkApiAccess } from "./auth.ts";
import { ifNoneMatchMatches } from "./etag.ts";
import { type KeyRateLimiter, type RateLimitDecision, setRateLimitState } from "./rate-limit.ts";

/**
 * Undefined at once for a request the lane never serves (not a GET under /v1/); otherwise the
 * remembered answer, or undefined for the router to answer.
 */
export type CachedAnswerLane = (request: Request) => Promise<Response | undefined> | undefined;

export function createCachedAnswerLane(deps: {
  answers: AnswerCache;
  /** Where the key check made here is left for the router's middleware, so a miss reads once. */
  checked: CheckedAccess;
  authenticator: KeyAuthenticator;
  rateLimiter: KeyRateLimiter | undefined;
  clock: Clock;
  requestIds: RequestIds;
  log: Logger;
  metrics: Metrics;
}): CachedAnswerLane {
  // The access-log and metrics recorder of each answer, key and status (200 or 304), prepared on
  // first use.
  const recorders = new WeakMap<CachedAnswer, Map<string, RequestRecorder>>();
  const recorderFor = (answer: CachedAnswer, keyId: string, status: number): RequestRecorder => {
    let byKey = recorders.get(answer);
    if (!byKey) {
      byKey = new Map();
      recorders.set(answer, byKey);
    }
    const slot = status === 200 ? keyId : `${keyId} ${status}`;
    let recorder = byKey.get(slot);
    if (!recorder) {
      const kind = { method: "GET", route: answer.route, status, keyId };
      recorder = createRequestRecorder(deps.log, deps.metrics, kind);
      byKey.set(slot, recorder);
    }
    return recorder;
  };
  const serve = async (request: Request, started: number): Promise<Response | undefined> => {
    const url = request.url;
    const now = deps.clock.now();
    const access = await checkApiAccess(
      deps.authenticator,
      request.headers.get("authorization"),
      now,
    );
    deps.checked.set(request, access);
    if (!access.ok) return undefined;
    const { principal } = access;
    const answer = deps.answers.get(principal, url, now);
    if (answer === undefined) return undefined;
    let limit: RateLimitDecision | undefined;
    if (deps.rateLimiter) {
      // A refusal counts nothing, so the router's own check refuses this request the same way.
      limit = deps.rateLimiter.consume(principal.keyId, now);
      if (!limit.allowed) return undefined;
    }
    const requestId = deps.requestIds.next();
    // A conditional read is decided after the key and the limit, like the router's (etag.ts).
    const unchanged = ifNoneMatchMatches(request.headers.get("if-none-match"), answer.etag);
    const response = unchanged ? answer.notModified.clone() : answer.template.clone();
    if (limit) setRateLimitState(response.headers, limit);
    response.headers.set(requestIdHeader, requestId);
    recorderFor(answer, principal.keyId, response.status)(performance.now() - started, requestId);
    return response;
  };
  return (request) => {
    const started = performance.now();
    if (request.method !== "GET") return undefined;
    const url = request.url;
    const pathStart = url.indexOf("/", url.indexOf("//") + 2);
    if (!url.startsWith("/v1/", pathStart)) return undefined;
    // On any failure the router meets the same failure and answers it through the one error model.
    return serve(request, started).catch(() => undefined);
  };
}
