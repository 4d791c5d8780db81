// The lane for /v1 requests whose answer is remembered (answer-store.ts), served before the
// router: the same key check, entitlement check and rate limit as the middleware chain
// (checkApiAccess, the same limiter), the same headers, request id, access-log line and metrics,
// without the per-request cost of the middleware chain (BENCHMARKS.md "Read API"). Anything
// else (no answer remembered, any refusal, the limit reached, any failure) returns undefined and
// goes to the router, which answers it from scratch, errors included.
import type { Clock } from "../../core/clock.ts";
import { requestIdHeader } from "../../core/errors.ts";
import { createRequestRecorder, type RequestRecorder } from "../../http/access-log.ts";
import { lateAnswerBody, lateBodyCorkedBytes } from "../../http/late-answer.ts";
import type { RequestIds } from "../../http/request-id.ts";
import type { KeyAuthenticator } from "../../keys/authenticate.ts";
import type { Logger } from "../../log/log.ts";
import type { Metrics } from "../../metrics/metrics.ts";
import type { AnswerCache, CachedAnswer } from "./answer-store.ts";
import { type ApiAccess, type CheckedAccess, checkApiAccess } from "./auth.ts";
import { ifNoneMatchMatches } from "./etag.ts";
import {
  type AccountRateLimiter,
  type RateLimitDecision,
  setRateLimitState,
} from "./rate-limit.ts";
import type { ReadLane } from "./read-lane.ts";

/**
 * Undefined at once for a request the lane never serves (not a GET under /v1/); otherwise the
 * remembered answer, or undefined for the router to answer. Synchronous when the key check is
 * (a remembered key row: no promise turn on the hottest path), else a promise of the same.
 */
export type CachedAnswerLane = (
  request: Request,
) => Response | Promise<Response | undefined> | undefined;

export function createCachedAnswerLane(deps: {
  answers: AnswerCache;
  /** Where the key check made here is left for the router's middleware, so a miss reads once. */
  checked: CheckedAccess;
  authenticator: KeyAuthenticator;
  rateLimiter: AccountRateLimiter | undefined;
  clock: Clock;
  requestIds: RequestIds;
  log: Logger;
  metrics: Metrics;
  /** Where a request with no remembered answer goes before the router (read-lane.ts). */
  fresh?: ReadLane;
  /** Every answer given from the remembered answers is added here (for diagnostics and tests). */
  served?: WeakSet<Response>;
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
  const answer = (
    request: Request,
    access: ApiAccess,
    now: Date,
    started: number,
    late: boolean,
  ): Response | Promise<Response | undefined> | undefined => {
    if (!access.ok) {
      deps.checked.set(request, access);
      return undefined;
    }
    const { principal } = access;
    const remembered = deps.answers.get(principal, request.url, now);
    if (remembered === undefined) {
      deps.checked.set(request, access);
      return deps.fresh?.(request, principal, now, started);
    }
    if (!deps.rateLimiter) return respond(request, access, remembered, undefined, started, late);
    // In memory while the process holds allowance for the account (shared-rate-limit.ts).
    const limit = deps.rateLimiter.consume(principal.serviceAccountId, now);
    if (!(limit instanceof Promise)) {
      return respond(request, access, remembered, limit, started, late);
    }
    return limit
      .then((decided) => respond(request, access, remembered, decided, started, true))
      .catch(() => undefined);
  };
  const respond = (
    request: Request,
    access: ApiAccess & { ok: true },
    remembered: CachedAnswer,
    limit: RateLimitDecision | undefined,
    started: number,
    /** Given after the request's turn of the event loop (the key check or the limit waited). */
    late: boolean,
  ): Response | undefined => {
    const { principal } = access;
    // A refusal counts nothing, so the router's own check refuses this request the same way.
    if (limit && !limit.allowed) {
      deps.checked.set(request, access);
      return undefined;
    }
    const requestId = deps.requestIds.next();
    // A conditional read is decided after the key and the limit, like the router's (etag.ts).
    const unchanged = ifNoneMatchMatches(request.headers.get("if-none-match"), remembered.etag);
    // A late answer's body too large to be corked goes as one write (late-answer.ts).
    const lateBytes =
      late && remembered.bytes.byteLength > lateBodyCorkedBytes ? remembered.bytes : undefined;
    const response = unchanged
      ? remembered.notModified.clone()
      : lateBytes
        ? // The init's headers are copied into the answer's own (Fetch), the template's stay.
          new Response(lateAnswerBody(lateBytes), {
            status: 200,
            headers: remembered.template.headers,
          })
        : remembered.template.clone();
    if (limit) setRateLimitState(response.headers, limit);
    response.headers.set(requestIdHeader, requestId);
    recorderFor(
      remembered,
      principal.keyId,
      response.status,
    )(performance.now() - started, requestId);
    deps.served?.add(response);
    return response;
  };
  return (request) => {
    const started = performance.now();
    if (request.method !== "GET") return undefined;
    const url = request.url;
    const pathStart = url.indexOf("/", url.indexOf("//") + 2);
    if (!url.startsWith("/v1/", pathStart)) return undefined;
    // On any failure the router meets the same failure and answers it through the one error model.
    try {
      const now = deps.clock.now();
      const access = checkApiAccess(deps.authenticator, request.headers.get("authorization"), now);
      if (!(access instanceof Promise)) return answer(request, access, now, started, false);
      return access
        .then((checked) => answer(request, checked, now, started, true))
        .catch(() => undefined);
    } catch {
      return undefined;
    }
  };
}
