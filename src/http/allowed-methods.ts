// 405 for a known path asked with another method (RFC 9110 15.5.6): the answer names the
// methods the path does allow in `Allow`. Hono answers any unmatched method-and-path with the
// not-found handler, which asks this module whether the path itself is known.
import type { Context } from "hono";
import { ApiError } from "../core/errors.ts";
import { errorResponse } from "./error-handler.ts";

interface RouteLike {
  method: string;
  path: string;
}

/** A Hono route path (`/v1/accounts/:account_id`) as a regular expression for one request path. */
function pathPattern(path: string): RegExp {
  const escaped = path
    .split("/")
    .map((part) => (part.startsWith(":") ? "[^/]+" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  return new RegExp(`^${escaped}/?$`);
}

/**
 * The methods each known path answers, from the app's routes (middleware, method ALL, is not a
 * route of its own). GET implies HEAD, which Hono answers from the GET route.
 */
export function createAllowedMethods(
  routes: () => readonly RouteLike[],
): (path: string) => string[] {
  let table: { pattern: RegExp; method: string }[] | undefined;
  return (path) => {
    table ??= routes()
      .filter((route) => route.method !== "ALL" && !route.path.includes("*"))
      .map((route) => ({ pattern: pathPattern(route.path), method: route.method }));
    const methods = new Set<string>();
    for (const route of table) if (route.pattern.test(path)) methods.add(route.method);
    if (methods.has("GET")) methods.add("HEAD");
    return [...methods];
  };
}

export function methodNotAllowed(c: Context, allowed: readonly string[]): Response {
  const list = allowed.join(", ");
  return errorResponse(
    c,
    new ApiError("method_not_allowed", `This resource answers only ${list}.`, { Allow: list }),
  );
}
