// Reading request input through zod, answering 400 invalid_request that names the field.
import type { Context } from "hono";
import type { z } from "zod";
import { ApiError } from "../core/errors.ts";

function describeIssue(error: z.ZodError, what: string): string {
  const issue = error.issues[0];
  const field = issue?.path.length ? issue.path.join(".") : what;
  return `${field}: ${issue?.message ?? "is invalid"}`;
}

/**
 * Parses the JSON body; a body sent as another content type, one that is not JSON, or one that
 * does not fit the schema, is a 400 saying which.
 */
export async function readJson<T extends z.ZodType>(c: Context, schema: T): Promise<z.infer<T>> {
  if (!/^application\/json\b/i.test(c.req.header("Content-Type") ?? "")) {
    throw new ApiError(
      "invalid_request",
      "Send the body as JSON with Content-Type: application/json.",
    );
  }
  let body: unknown;
  try {
    body = await c.req.json();
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new ApiError("invalid_request", `The request body is not valid JSON: ${detail}`);
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new ApiError("invalid_request", describeIssue(parsed.error, "body"));
  return parsed.data;
}

export function readQuery<T extends z.ZodType>(c: Context, schema: T): z.infer<T> {
  const parsed = schema.safeParse(c.req.query());
  if (!parsed.success) throw new ApiError("invalid_request", describeIssue(parsed.error, "query"));
  return parsed.data;
}
