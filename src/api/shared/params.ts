// Request parameters of /v1 routes and the one way a bad one is answered: 400 invalid_request
// naming the parameter. Unknown query parameters are refused too, so a typo such as
// `include_pendng=true` is not silently ignored.
import { z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import type { ZodError } from "zod";
import { ApiError } from "../../core/errors.ts";

export const defaultPageLimit = 100;
export const maxPageLimit = 500;

function pathId(name: string, what: string) {
  return z.guid({ error: "must be a UUID" }).openapi({
    param: { name, in: "path" },
    description: `The ${what}'s id (a UUID).`,
    example: "3f1c2a4e-8d9b-4c7e-9a51-0b6d2e7f4a10",
  });
}

export const accountPathParams = z.object({ account_id: pathId("account_id", "account") });
export const connectionPathParams = z.object({
  connection_id: pathId("connection_id", "connection"),
});

const limitMessage = `must be a whole number from 1 to ${maxPageLimit}`;
export const limitParam = z
  .string({ error: limitMessage })
  .regex(/^[0-9]{1,6}$/, limitMessage)
  .transform(Number)
  .pipe(z.number().min(1, limitMessage).max(maxPageLimit, limitMessage))
  .optional()
  .openapi({
    param: { name: "limit", in: "query" },
    type: "integer",
    minimum: 1,
    maximum: maxPageLimit,
    default: defaultPageLimit,
    description: `Rows per page, 1 to ${maxPageLimit} (default ${defaultPageLimit}).`,
  });

export const cursorParam = z
  .string({ error: "must be given once" })
  .min(1, "must not be empty: pass next_cursor unchanged, or leave cursor out for the first page")
  .optional()
  .openapi({
    param: { name: "cursor", in: "query" },
    description: "The `next_cursor` of the previous page, unchanged.",
  });

/**
 * The query of a single-resource route: it takes no parameter, and any given is refused with the
 * same 400 as on list routes (`/v1/accounts/{id}?include_pendng=true` is no silent 200).
 */
export const noQuery = z.object({}).strict();

export const pageQuery = z.object({ limit: limitParam, cursor: cursorParam }).strict();

function describeFailure(target: string, error: ZodError): string {
  const where = target === "param" ? "path parameter" : `${target} parameter`;
  const issue = error.issues[0];
  if (issue?.code === "unrecognized_keys") {
    const names = issue.keys.map((key) => `"${key}"`).join(", ");
    return `Unknown ${where}${issue.keys.length > 1 ? "s" : ""} ${names}.`;
  }
  const name = String(issue?.path[0] ?? "request");
  return `Invalid ${where} "${name}": ${issue?.message ?? "is invalid"}.`;
}

/** The OpenAPIHono defaultHook: a failed validation becomes 400 invalid_request. */
export function validationHook(
  result: { target: string; success: boolean; error?: unknown },
  _c: Context,
): void {
  if (!result.success) {
    throw new ApiError("invalid_request", describeFailure(result.target, result.error as ZodError));
  }
}

/**
 * `?=1` has a parameter without a name, which Hono's query reader drops before the schemas see
 * it: refused here with the same 400 as any other unknown parameter.
 */
export const refuseNamelessQueryParameters: MiddlewareHandler = async (c, next) => {
  // A name is empty exactly when a non-empty `&`-separated part starts with `=` (the URL
  // standard's query parsing); a test of the raw text spares parsing every query a second time.
  const query = c.req.url.indexOf("?");
  if (query >= 0 && hasNamelessQueryParameter(c.req.url.slice(query + 1))) {
    throw new ApiError("invalid_request", 'Unknown query parameter "".');
  }
  await next();
};

const namelessParameter = /(?:^|&)=/;

/** Whether a raw query string (after `?`) has a parameter without a name. */
export function hasNamelessQueryParameter(query: string): boolean {
  return namelessParameter.test(query);
}
