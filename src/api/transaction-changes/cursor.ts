// Cursors of the transactions change feed: where the reader is (in the snapshot, or a position
// in the feed), the account they belong to, and when they were issued. A cursor is valid for the
// retention period (the changes behind it are kept a day longer, so a valid cursor never points
// past a pruned change); an older one answers 400 cursor_expired: start again without a cursor.
import { z } from "@hono/zod-openapi";
import { dayMs } from "../../core/dates.ts";
import { ApiError } from "../../core/errors.ts";
import { decodeCursor, encodeCursor, foreignCursor } from "../shared/cursor.ts";
import type { ChangesFrom } from "./read.ts";

const position = { s: z.number().int().min(0) };
const changesCursor = z.discriminatedUnion("p", [
  z
    .object({
      v: z.literal(1),
      k: z.literal("changes"),
      p: z.literal("s"),
      account: z.guid(),
      at: z.number().int().min(0),
      ...position,
      d: z.iso.date().optional(),
      i: z.guid().optional(),
    })
    .strict(),
  z
    .object({
      v: z.literal(1),
      k: z.literal("changes"),
      p: z.literal("c"),
      account: z.guid(),
      at: z.number().int().min(0),
      ...position,
    })
    .strict(),
]);

export function cursorExpired(retentionDays: number): ApiError {
  return new ApiError(
    "cursor_expired",
    `The cursor is older than the ${retentionDays}-day retention and the changes after it are no longer kept. Start again without a cursor (the first pages are every current transaction as added) and replace your copy.`,
  );
}

export function decodeChangesCursor(
  text: string,
  accountId: string,
  now: Date,
  retentionDays: number,
): ChangesFrom {
  const cursor = decodeCursor(text, changesCursor);
  if (cursor.account !== accountId) throw foreignCursor();
  if (cursor.at < now.getTime() - retentionDays * dayMs) throw cursorExpired(retentionDays);
  const at = cursor.s;
  if (cursor.p === "c") return { phase: "changes", position: at };
  return {
    phase: "snapshot",
    head: at,
    ...(cursor.d !== undefined && cursor.i !== undefined
      ? { after: { bookingDate: cursor.d, id: cursor.i } }
      : {}),
  };
}

export function encodeChangesCursor(accountId: string, from: ChangesFrom, now: Date): string {
  const common = { v: 1, k: "changes", account: accountId, at: now.getTime() };
  if (from.phase === "changes") {
    return encodeCursor({ ...common, p: "c", s: from.position });
  }
  return encodeCursor({
    ...common,
    p: "s",
    s: from.head,
    ...(from.after ? { d: from.after.bookingDate, i: from.after.id } : {}),
  });
}
