// Keyset pagination for the id-ordered lists (accounts, connections): the cursor carries the list
// it belongs to and the last id served.
import { z } from "@hono/zod-openapi";
import { decodeCursor, encodeCursor, foreignCursor } from "./cursor.ts";
import type { Page } from "./page.ts";
import { defaultPageLimit } from "./params.ts";

const idCursor = z.object({ v: z.literal(1), k: z.string(), after: z.guid() }).strict();

export interface IdPageRequest {
  limit: number;
  afterId?: string;
}

export function idPageRequest(
  list: string,
  query: { limit?: number; cursor?: string },
): IdPageRequest {
  const limit = query.limit ?? defaultPageLimit;
  if (query.cursor === undefined) return { limit };
  const cursor = decodeCursor(query.cursor, idCursor);
  if (cursor.k !== list) throw foreignCursor();
  return { limit, afterId: cursor.after };
}

export function idPageBody<T>(
  list: string,
  page: Page<T>,
  idOf: (row: T) => string,
): { data: T[]; next_cursor: string | null } {
  const last = page.data.at(-1);
  return {
    data: page.data,
    next_cursor: page.hasMore && last ? encodeCursor({ v: 1, k: list, after: idOf(last) }) : null,
  };
}
