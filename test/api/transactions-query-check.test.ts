// The read lane's hand-written checks of the transactions query and cursor give the zod schemas'
// verdict and value on every input: a table of the edges, then random and hostile inputs. The
// query's value is built as the lane builds it (Hono's query reader, one value or the list).
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { honoQueryValue } from "../../src/api/middleware/query-value.ts";
import { transactionCursorSchema, transactionsQuery } from "../../src/api/transactions/query.ts";
import {
  checkTransactionCursor,
  checkTransactionsQuery,
} from "../../src/api/transactions/query-check.ts";

function expectSameQueryVerdict(query: string): void {
  const value = honoQueryValue(`http://svc.test/v1/x?${query}`);
  const byZod = transactionsQuery.safeParse(value);
  const byHand = checkTransactionsQuery(honoQueryValue(`http://svc.test/v1/x?${query}`));
  expect({ query, success: byHand.success }).toEqual({ query, success: byZod.success });
  if (byHand.success && byZod.success) expect(byHand.data).toStrictEqual(byZod.data);
}

function expectSameCursorVerdict(value: unknown): void {
  const byZod = transactionCursorSchema.safeParse(value);
  const byHand = checkTransactionCursor(value);
  expect({ value, success: byHand.success }).toEqual({ value, success: byZod.success });
  if (byHand.success && byZod.success) expect(byHand.data).toStrictEqual(byZod.data);
}

const dates = [
  "2026-01-15",
  "2024-02-29",
  "2023-02-29",
  "2000-02-29",
  "1900-02-29",
  "2026-04-31",
  "2026-13-01",
  "2026-1-5",
  "20260115",
  "2026-01-15T00:00:00Z",
  " 2026-01-15",
  "15.01.2026",
  "0000-01-01",
  "9999-12-31",
  "",
];
const flags = ["true", "false", "1", "0", "TRUE", "yes", "", "01", "true ", "%74rue"];
const limits = ["1", "100", "500", "501", "0", "000", "0001", "000500", "1000000", "-1", "1e2"];
const limitsMore = ["+1", "%31", "1.0", " 1", "0x10", "", "abc", "999999"];
const cursors = ["a", "", "eyJ2IjoxfQ", "%20", "x+y", "a=b"];
const names = ["from", "to", "include_pending", "limit", "cursor"];
const hostileNames = ["__proto__", "constructor", "toString", "hasOwnProperty", "FROM", "x", ""];

describe("the query check gives transactionsQuery's verdict and value", () => {
  const table = [
    "",
    "x",
    "=1",
    "from",
    "from=",
    "limit",
    "limit&limit",
    "limit=1&limit=2",
    "from=2026-01-01&from=2026-01-01",
    "cursor=a&cursor=a",
    "__proto__=1",
    "__proto__=a&__proto__=b",
    "__proto__=1&limit=5",
    "constructor=1",
    "toString=1&from=2026-01-01",
    "from=2026-01-01&to=2026-01-31&include_pending=true&limit=100&cursor=abc",
    "&&&",
    "limit=5&&from=2026-01-01",
    "lim%69t=5",
    "from=2026%2D01%2D01",
    ...dates.flatMap((date) => [`from=${date}`, `to=${date}`]),
    ...flags.map((flag) => `include_pending=${flag}`),
    ...[...limits, ...limitsMore].map((limit) => `limit=${limit}`),
    ...cursors.map((cursor) => `cursor=${cursor}`),
  ];
  test.each(table)("?%s", (query) => expectSameQueryVerdict(query));

  test("random queries of the parameters' names and values", () => {
    const name = fc.oneof(fc.constantFrom(...names, ...hostileNames), fc.string({ maxLength: 6 }));
    const value = fc.oneof(
      fc.constantFrom(...dates, ...flags, ...limits, ...limitsMore, ...cursors),
      fc.string({ maxLength: 12 }),
      fc.stringMatching(/^[0-9]{1,7}$/),
    );
    const part = fc.oneof(
      fc.tuple(name, value).map(([n, v]) => `${n}=${v}`),
      name,
      fc.constant(""),
    );
    fc.assert(
      fc.property(fc.array(part, { maxLength: 6 }), (parts) =>
        expectSameQueryVerdict(parts.join("&")),
      ),
      { numRuns: 5_000 },
    );
  });

  test("random text as the query", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (query) => expectSameQueryVerdict(query)),
      { numRuns: 2_000 },
    );
  });
});

describe("the cursor check gives transactionCursorSchema's verdict and value", () => {
  const valid = {
    v: 1,
    k: "transactions",
    account: "3f1c2a4e-8d9b-4c7e-9a51-0b6d2e7f4a10",
    from: "2025-01-01",
    to: "2026-01-15",
    pending: false,
    date: "2026-01-10",
    id: "0193a1b2-7c3d-7e4f-8a5b-6c7d8e9f0a1b",
  };
  const fieldValues = [
    1,
    2,
    "1",
    1.5,
    0,
    -0,
    null,
    true,
    false,
    "true",
    "transactions",
    "accounts",
    "",
    [],
    {},
    ...dates,
    valid.account,
    valid.account.toUpperCase(),
    `${valid.account}x`,
    "00000000-0000-0000-0000-000000000000",
    "3f1c2a4e8d9b4c7e9a510b6d2e7f4a10",
  ];
  const table: unknown[] = [
    valid,
    { ...valid, pending: true },
    { ...valid, extra: 1 },
    { ...valid, v: 2 },
    null,
    undefined,
    1,
    "cursor",
    [],
    [valid],
    {},
    JSON.parse(`{"__proto__":{"v":1},${JSON.stringify(valid).slice(1)}`),
    JSON.parse(`${JSON.stringify(valid).slice(0, -1)},"__proto__":null}`),
    ...Object.keys(valid).map((field) => {
      const { [field as keyof typeof valid]: _, ...rest } = valid;
      return rest;
    }),
  ];
  // Each value in a list of its own: test.each would take a lone `undefined` for no argument.
  test.each(table.map((value) => [value]))("%j", (value) => expectSameCursorVerdict(value));

  test("random values of each field", () => {
    const field = fc.oneof(fc.constantFrom(...fieldValues), fc.jsonValue({ maxDepth: 1 }));
    const changed = fc.record(
      Object.fromEntries(Object.keys(valid).map((name) => [name, field])) as Record<
        keyof typeof valid,
        fc.Arbitrary<unknown>
      >,
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(changed, fc.boolean(), (fields, merge) =>
        expectSameCursorVerdict(merge ? { ...valid, ...fields } : fields),
      ),
      { numRuns: 5_000 },
    );
  });

  test("random JSON", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 2 }), (value) => expectSameCursorVerdict(value)),
      { numRuns: 2_000 },
    );
  });
});
