// Successful /v1 reads of URLs asked for more than once, remembered per service account, data generation and URL: the account's
// generation (service_accounts.data_generation) moves in the same transaction as every change of
// its bank data (triggers, in every process and on every instance), and the key check reads it on
// every request, so a remembered answer is exactly what a fresh read would give, without
// rebuilding 100 rows. Errors are never remembered. Served by answer-lane.ts, which checks the
// key and counts the rate limit first, like any other request.
import type { MiddlewareHandler } from "hono";
import { createBoundedCache } from "../../core/bounded-map.ts";
import type { Clock } from "../../core/clock.ts";
import { requestIdHeader } from "../../core/errors.ts";
import { routePattern } from "../../http/access-log.ts";
import type { ApiEnv, Principal } from "./auth.ts";
import { etagHeader, notModifiedResponse } from "./etag.ts";
import { rateLimitHeaderNames } from "./rate-limit.ts";

export interface CachedAnswer {
  /**
   * The fresh answer, to be cloned per request and given its own request id and rate-limit state
   * (the other headers, their order and spelling stay as the fresh answer had them): the body is
   * a Blob the clones share, and copying headers is cheaper than building them (BENCHMARKS.md).
   */
  template: Response;
  /**
   * The body's bytes once more, for an answer given late (its key check waited for the
   * database): it sends them as they are (http/late-answer.ts); reading the Blob back cost a
   * quarter of such an answer's CPU. Counted in `size`.
   */
  bytes: Uint8Array<ArrayBuffer>;
  /** The bytes the answer holds (what the cache's memory bound counts). */
  size: number;
  /** The route pattern, for the access log and metrics. */
  route: string;
  /** The answer's strong entity tag (etag.ts). */
  etag: string;
  /** The 304 given for a matching `If-None-Match`, cloned per request like `template`. */
  notModified: Response;
}

export interface AnswerCache {
  get(principal: Principal, url: string, now: Date): CachedAnswer | undefined;
  set(principal: Principal, url: string, now: Date, answer: CachedAnswer): void;
  /**
   * Whether a fresh answer for this URL is worth remembering: true from the second time the
   * same URL (same account, generation and day) is answered. Most URLs of an integrator paging
   * through cursors or moving windows are asked once; copying their answers would only cost.
   */
  askedBefore(principal: Principal, url: string, now: Date): boolean;
}

const msPerDay = 86_400_000;

/**
 * Headers iterate sorted, with lower-case names; the service's own are put back in their
 * spelling and order (so a remembered answer reads like a fresh one). Bun spells standard ones.
 */
const ownHeaderSpelling = new Map(
  [requestIdHeader, ...rateLimitHeaderNames].map((name) => [name.toLowerCase(), name]),
);

/** Bounded by count and by body bytes (a 100-row transactions page is ~30 KB, 500 rows ~150 KB). */
export function createAnswerCache(limits: { maxEntries: number; maxBytes: number }): AnswerCache {
  const entries = createBoundedCache<CachedAnswer>({
    maxEntries: limits.maxEntries,
    maxSize: limits.maxBytes,
    sizeOf: (answer) => answer.size,
  });
  // The default transactions window ends "today", so the UTC day is part of what a URL means;
  // the generation the key check saw guarantees the answer is not older than any change of the
  // account's data. Answers of older generations are never asked for again and age out.
  const keyOf = (principal: Principal, url: string, now: Date) =>
    `${principal.serviceAccountId} ${principal.dataGeneration} ${Math.floor(now.getTime() / msPerDay)} ${url}`;
  // URLs answered once, by key; a few bytes each, bounded like the answers.
  const asked = createBoundedCache<true>({ maxEntries: limits.maxEntries * 8 });
  return {
    get: (principal, url, now) => entries.get(keyOf(principal, url, now)),
    set: (principal, url, now, answer) => entries.set(keyOf(principal, url, now), answer),
    askedBefore(principal, url, now) {
      const key = keyOf(principal, url, now);
      if (asked.get(key)) return true;
      asked.set(key, true);
      return false;
    },
  };
}

/** Remembers successful GETs answered by the routes after it, from a URL's second answer on. */
export function rememberAnswersMiddleware(deps: {
  answers: AnswerCache;
  clock: Clock;
}): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    // The day the request started: an answer read across midnight UTC is filed under the day
    // that has ended (never served again), not under the new day its default window may miss.
    const startedAt = deps.clock.now();
    await next();
    if (c.req.method !== "GET" || c.res.status !== 200) return;
    // An answer that depends on more than the account's data generation (the change feed).
    if (c.get("unremembered")) return;
    if (!deps.answers.askedBefore(c.get("principal"), c.req.url, startedAt)) return;
    // Only tagged answers (entityTagMiddleware runs after this one) are remembered.
    if (c.res.headers.get(etagHeader) === null) return;
    const copy = c.res.clone();
    const bytes = await copy.bytes();
    const answer = cachedAnswerOf(c.res.headers, bytes, routePattern(c));
    if (answer) deps.answers.set(c.get("principal"), c.req.url, startedAt, answer);
  };
}

/**
 * What is remembered of a 200 answer with these headers and body, or undefined when it carries
 * no entity tag (the router's and the read lane's answers alike).
 */
export function cachedAnswerOf(
  okHeaders: Headers,
  /** The body's bytes: the template's Blob and, beside it, CachedAnswer.bytes. */
  bytes: Uint8Array<ArrayBuffer>,
  route: string,
): CachedAnswer | undefined {
  const etag = okHeaders.get(etagHeader);
  if (etag === null) return undefined;
  const headers = new Headers();
  okHeaders.forEach((value, name) => {
    if (!ownHeaderSpelling.has(name)) headers.set(name, value);
  });
  for (const name of ownHeaderSpelling.values()) {
    const value = okHeaders.get(name);
    if (value !== null) headers.set(name, value);
  }
  const body = new Blob([bytes]);
  return {
    template: new Response(body, { status: 200, headers }),
    bytes,
    size: body.size + bytes.byteLength,
    route,
    etag,
    notModified: notModifiedResponse(headers),
  };
}
