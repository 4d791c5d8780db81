// The read lane's reader of the raw query text gives the value Hono's query reader gives, on a
// table of edges and on random and hostile query strings.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { honoQueryValue, queryValueOf } from "../../src/api/middleware/query-value.ts";

function expectSameValue(query: string | undefined): void {
  const url = `http://svc.test/v1/accounts${query === undefined ? "" : `?${query}`}`;
  const byLane = queryValueOf(url, url.indexOf("?"));
  const byHono = honoQueryValue(url);
  expect(byLane).toStrictEqual(byHono);
  // The same names in the same order, and the same prototype (a repeated `__proto__` sets it).
  expect(Object.keys(byLane)).toEqual(Object.keys(byHono));
  expect(Object.getPrototypeOf(byLane)).toEqual(Object.getPrototypeOf(byHono));
}

describe("the lane's query reader gives Hono's value", () => {
  const table = [
    undefined,
    "",
    "&",
    "&&a=1&&",
    "=",
    "=1",
    "a",
    "a=",
    "a==1",
    "a=1=2",
    "a=1&a=2&a",
    "a&b&a",
    "2=x&1=y&b=z&0=w",
    "constructor=1",
    "toString=1&toString=2",
    "__proto__=1",
    "__proto__=a&__proto__=b",
    "a=%41",
    "a=1+2",
    "a+b=1",
    "%61=1&a=2",
    "a=%",
    "from=2026-01-01&to=2026-01-31&include_pending=true&limit=100&cursor=eyJ2IjoxfQ",
  ];
  test.each(table.map((query) => [query]))("?%s", (query) => expectSameValue(query));

  test("random query strings", () => {
    const piece = fc.oneof(
      fc.constantFrom(
        "&",
        "=",
        "a",
        "b",
        "limit",
        "__proto__",
        "constructor",
        "%",
        "%41",
        "+",
        "1",
      ),
      fc.string({ maxLength: 4 }),
    );
    fc.assert(
      // The lane leaves a URL with a fragment to the router (a fragment never reaches a server).
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) =>
        expectSameValue(pieces.join("").replaceAll("#", "")),
      ),
      { numRuns: 5_000 },
    );
  });
});
