// The value a route's query schema is given, as Hono's query validator builds it: each name's
// value, or its values when the name is repeated. The read lane builds it from the raw text when
// nothing in it needs decoding (no `%`, no `+`) and no name is `__proto__`; anything else is read
// by Hono's own reader, so the value is the same either way (test/api/query-value.test.ts).
import { getQueryParams } from "hono/utils/url";

export type QueryValue = Record<string, string | string[]>;

/** Hono's reader: every query, whatever it holds. */
export function honoQueryValue(url: string): QueryValue {
  const value: QueryValue = {};
  for (const [name, values] of Object.entries(getQueryParams(url) as Record<string, string[]>)) {
    value[name] = values.length === 1 ? (values[0] as string) : values;
  }
  return value;
}

const needsHono = /[%+]|__proto__/;

/**
 * The query value of `url`, whose `?` is at `queryStart` (-1: none) and which has no fragment.
 * `&`-separated parts, the name up to the first `=` (no `=`: the value is empty), parts without a
 * name skipped, as Hono reads them.
 */
export function queryValueOf(url: string, queryStart: number): QueryValue {
  const value: QueryValue = {};
  if (queryStart < 0) return value;
  const query = url.slice(queryStart + 1);
  if (needsHono.test(query)) return honoQueryValue(url);
  let start = 0;
  while (start <= query.length) {
    let end = query.indexOf("&", start);
    if (end < 0) end = query.length;
    const equals = query.indexOf("=", start);
    const hasValue = equals >= 0 && equals < end;
    const name = query.slice(start, hasValue ? equals : end);
    start = end + 1;
    if (name === "") continue;
    const given = hasValue ? query.slice(equals + 1, end) : "";
    if (!Object.hasOwn(value, name)) value[name] = given;
    else {
      const earlier = value[name] as string | string[];
      if (typeof earlier === "string") value[name] = [earlier, given];
      else earlier.push(given);
    }
  }
  return value;
}
