// A /v1 GET read defined once and answered by two paths: the Hono router (registerRead) and the
// read lane before it (read-lane.ts), which skips the router's per-request machinery. Both
// validate with the route's own schemas and call the same `read`, so an answer is the same bytes
// whichever path gives it.
import type { OpenAPIHono, RouteConfig } from "@hono/zod-openapi";
import type { z } from "zod";
import type { ApiEnv, Principal } from "./auth.ts";
import { entityTagOf, etagHeader } from "./etag.ts";
import type { QueryValue } from "./query-value.ts";

type Output<T> = T extends z.ZodType ? z.output<T> : Record<string, never>;
type RequestPart<R extends RouteConfig, Part extends string> =
  R["request"] extends Record<Part, infer Schema> ? Schema : undefined;

/** What a read gets: who asks, and the path and query parameters as the route's schemas gave them. */
export interface ReadInput<R extends RouteConfig> {
  principal: Principal;
  param: Output<RequestPart<R, "params">>;
  query: Output<RequestPart<R, "query">>;
}

/**
 * A successful read: the JSON body, as text or as its UTF-8 bytes, answered 200 with
 * `Content-Type: application/json`.
 */
export interface ReadAnswer {
  body: string | Uint8Array<ArrayBuffer>;
  /** The answer depends on more than the account's data generation: never remembered (api/middleware/answer-store.ts). */
  unremembered?: boolean;
}

/**
 * A check by hand of the route's query value (as Hono's query reader gives it) with the same
 * verdict and value as the route's zod query schema, held to it by a test: the lane's cheaper
 * way to the same answer. A refusal goes on to the router, whose schema words the 400.
 */
export type LaneQueryCheck = (
  value: QueryValue,
) => { success: true; data: unknown } | { success: false };

/** A read with its types erased, as the router and the lane hold it (built by readRoute). */
export interface ReadRoute {
  route: RouteConfig;
  /** The lane checks the query with this instead of the route's zod schema. */
  laneQuery?: LaneQueryCheck;
  /** The answer, or an ApiError (rendered by the router's error model). */
  read(input: { principal: Principal; param: unknown; query: unknown }): Promise<ReadAnswer>;
}

/** A read of `route`: `read` gets the parameters as the route's schemas type them. */
export function readRoute<R extends RouteConfig>(
  route: R,
  read: (input: ReadInput<R>) => Promise<ReadAnswer>,
  laneQuery?: (
    value: QueryValue,
  ) => { success: true; data: Output<RequestPart<R, "query">> } | { success: false },
): ReadRoute {
  return { route, read: read as ReadRoute["read"], ...(laneQuery ? { laneQuery } : {}) };
}

/** The headers of a successful read's body: JSON, tagged from its bytes (etag.ts). */
export function readAnswerHeaders(body: string | Uint8Array): Record<string, string> {
  return { "Content-Type": "application/json", [etagHeader]: entityTagOf(body) };
}

/** Registers the read on the router, where the middleware chain does the checks around it. */
export function registerRead(app: OpenAPIHono<ApiEnv>, { route, read }: ReadRoute): void {
  app.openapi(route, (async (c: {
    get(name: "principal"): Principal;
    set(name: "unremembered", value: boolean): void;
    req: { valid(target: "param" | "query"): unknown };
    body(
      body: string | Uint8Array<ArrayBuffer>,
      status: 200,
      headers: Record<string, string>,
    ): Response;
  }) => {
    const answer = await read({
      principal: c.get("principal"),
      param: route.request?.params ? c.req.valid("param") : {},
      query: route.request?.query ? c.req.valid("query") : {},
    });
    if (answer.unremembered) c.set("unremembered", true);
    // Tagged here from the body, so entityTagMiddleware need not read it back.
    return c.body(answer.body, 200, readAnswerHeaders(answer.body));
  }) as never);
}
