// Opaque pagination cursors: base64url JSON of the position of the last row served (keyset
// pagination), plus what the cursor is bound to. Every decoded field is validated, so a damaged or
// hand-edited cursor is a clear 400, never a wrong page or a 500.
import { ApiError } from "../../core/errors.ts";

/**
 * What checks a decoded cursor's JSON: a zod schema, or a check by hand with the same verdicts
 * (transactions/query-check.ts).
 */
export interface CursorSchema<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false };
}

export function encodeCursor(position: object): string {
  return Buffer.from(JSON.stringify(position)).toString("base64url");
}

export function invalidCursor(reason: string): ApiError {
  return new ApiError(
    "invalid_request",
    `Invalid query parameter "cursor": ${reason}. Pass the next_cursor of a previous page unchanged.`,
  );
}

export function decodeCursor<T>(cursor: string, schema: CursorSchema<T>): T {
  if (!/^[A-Za-z0-9_-]{1,1024}$/.test(cursor)) throw invalidCursor("not a cursor of this API");
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw invalidCursor("not a cursor of this API");
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw invalidCursor("not a cursor of this API");
  return parsed.data;
}

/** A cursor used with another resource, account or query than the one it came from. */
export function foreignCursor(): ApiError {
  return invalidCursor("it belongs to a different list or query");
}
