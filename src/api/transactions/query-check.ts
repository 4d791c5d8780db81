// The transactions query string and cursor checked by hand, for the read lane: the same verdict
// and the same value as the zod schemas of query.ts (`transactionsQuery`, `transactionCursorSchema`),
// at a fraction of their cost per request. Only the verdict is given: a refused query goes on to
// the router, whose zod schemas word the 400, and a refused cursor is answered by decodeCursor's
// one message. test/api/transactions-query-check.test.ts holds the two to each other on a table
// of cases and on random and hostile inputs. The OpenAPI document is still generated from zod.
import { z } from "@hono/zod-openapi";
import type { QueryValue } from "../middleware/query-value.ts";
import { maxPageLimit } from "../shared/params.ts";

/** What `transactionsQuery.safeParse` gives, less the issues of a failure. */
export type QueryVerdict<T> = { success: true; data: T } | { success: false };

export interface CheckedTransactionsQuery {
  from?: string;
  to?: string;
  include_pending?: boolean;
  limit?: number;
  cursor?: string;
}

// The very patterns of z.iso.date() and z.guid().
const datePattern = z.regexes.date;
const guidPattern = z.regexes.guid;
const limitPattern = /^[0-9]{1,6}$/;
const refused = { success: false } as const;

/** `transactionsQuery.safeParse(value)`, without the issues. */
export function checkTransactionsQuery(value: QueryValue): QueryVerdict<CheckedTransactionsQuery> {
  const data: CheckedTransactionsQuery = {};
  // for...in, as zod's strict check reads the names (an own `__proto__` included).
  for (const name in value) {
    const given = value[name];
    if (typeof given !== "string") return refused;
    switch (name) {
      case "from":
      case "to":
        if (!datePattern.test(given)) return refused;
        data[name] = given;
        break;
      case "include_pending":
        if (given === "true" || given === "1") data.include_pending = true;
        else if (given === "false" || given === "0") data.include_pending = false;
        else return refused;
        break;
      case "limit": {
        if (!limitPattern.test(given)) return refused;
        const limit = Number(given);
        if (limit < 1 || limit > maxPageLimit) return refused;
        data.limit = limit;
        break;
      }
      case "cursor":
        if (given.length === 0) return refused;
        data.cursor = given;
        break;
      default:
        return refused;
    }
  }
  return { success: true, data };
}

export interface TransactionCursor {
  v: 1;
  k: "transactions";
  account: string;
  from: string;
  to: string;
  pending: boolean;
  date: string;
  id: string;
}

const cursorFields = new Set(["v", "k", "account", "from", "to", "pending", "date", "id"]);

/** `transactionCursorSchema.safeParse(value)` of a decoded cursor's JSON, without the issues. */
export function checkTransactionCursor(value: unknown): QueryVerdict<TransactionCursor> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return refused;
  const cursor = value as Record<string, unknown>;
  for (const name in cursor) if (!cursorFields.has(name)) return refused;
  const { v, k, account, from, to, pending, date, id } = cursor;
  if (
    v !== 1 ||
    k !== "transactions" ||
    typeof account !== "string" ||
    !guidPattern.test(account) ||
    typeof from !== "string" ||
    !datePattern.test(from) ||
    typeof to !== "string" ||
    !datePattern.test(to) ||
    typeof pending !== "boolean" ||
    typeof date !== "string" ||
    !datePattern.test(date) ||
    typeof id !== "string" ||
    !guidPattern.test(id)
  ) {
    return refused;
  }
  return { success: true, data: { v, k, account, from, to, pending, date, id } };
}
