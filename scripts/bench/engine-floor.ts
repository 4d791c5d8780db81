// The engine's floor for scripts/bench/read-api.ts, in a plain process of its own: the pages of a
// rotation file (the same "<path> <key>" lines the load generator drives the service with) read
// by the same SQL the service runs, through the engine's client on a connection of its own — a
// bare prepared statement of bun:sqlite, or Bun's SQL client on one PostgreSQL connection. No
// drizzle, no HTTP, no JavaScript object per row: no request for those pages can cost less.
//
//   bun run scripts/bench/engine-floor.ts FILE --offset N --seconds S (--sqlite PATH | --database-url URL)
//
// Reads the file's lines from --offset on (wrapping) for --seconds, then prints one JSON line:
// pages read, the mean µs per page and the mean rows per page.
import { Database } from "bun:sqlite";
import { parseArgs } from "node:util";
import { SQL } from "bun";
import { resolveTransactionQuery } from "../../src/api/transactions/query.ts";
import type { TransactionQuery } from "../../src/api/transactions/read.ts";
import { threadCpuMicros } from "./thread-cpu.ts";

const { values, positionals } = parseArgs({
  args: Bun.argv.slice(2),
  allowPositionals: true,
  options: {
    offset: { type: "string", default: "0" },
    seconds: { type: "string", default: "2" },
    sqlite: { type: "string" },
    "database-url": { type: "string" },
  },
});
const file = positionals[0];
if (!file || (!values.sqlite && !values["database-url"])) {
  throw new Error("usage: engine-floor.ts FILE (--sqlite PATH | --database-url URL)");
}

// Each line resolved to the query the service would run for it (window, limit, cursor), before
// anything is timed.
const accountPath = /^\/v1\/accounts\/([^/]+)\/transactions\?(.*)$/;
const now = new Date();
const queries = (await Bun.file(file).text())
  .split("\n")
  .filter((line) => line.includes(" "))
  .map((line) => {
    const path = line.slice(0, line.indexOf(" "));
    const match = accountPath.exec(path);
    if (!match) throw new Error(`not a transactions path: ${path}`);
    const accountId = match[1] as string;
    const params = new URLSearchParams(match[2]);
    const input = {
      from: params.get("from") ?? undefined,
      to: params.get("to") ?? undefined,
      limit: params.has("limit") ? Number(params.get("limit")) : undefined,
      include_pending: params.has("include_pending")
        ? params.get("include_pending") === "true"
        : undefined,
      cursor: params.get("cursor") ?? undefined,
    };
    return { accountId, query: resolveTransactionQuery(input, accountId, now) };
  });

// The service's statements (src/api/transactions/read.ts), written out: the JSON column in the
// primary key's order, one row more than the page.
const statementText = (pending: boolean, later: boolean, n: (i: number) => string) =>
  `select json from transactions where account_id = ${n(1)} and booking_date >= ${n(2)} and ${
    later ? `(booking_date, id) < (${n(3)}, ${n(4)})` : `booking_date <= ${n(3)}`
  } and removed_at is null and ${pending ? "(status = 'booked' or booked_transaction_id is null)" : "status = 'booked'"} order by booking_date desc, id desc limit ${n(later ? 5 : 4)}`;
const argsOf = (accountId: string, q: TransactionQuery): (string | number)[] =>
  q.after
    ? [accountId, q.window.from, q.after.bookingDate, q.after.id, q.limit + 1]
    : [accountId, q.window.from, q.window.to, q.limit + 1];

let read: (accountId: string, q: TransactionQuery) => number | Promise<number>;
let close: () => Promise<void> | void;
if (values.sqlite) {
  const connection = new Database(values.sqlite, { readonly: true });
  const statements = new Map<string, ReturnType<typeof connection.prepare>>();
  for (const pending of [false, true]) {
    for (const later of [false, true]) {
      statements.set(
        `${pending}${later}`,
        connection.prepare(statementText(pending, later, () => "?")),
      );
    }
  }
  read = (accountId, q) =>
    (
      statements.get(`${q.includePending}${q.after !== undefined}`) as ReturnType<
        typeof connection.prepare
      >
    ).values(...argsOf(accountId, q)).length;
  close = () => connection.close();
} else {
  const client = new SQL({ url: values["database-url"] as string, max: 1 });
  read = async (accountId, q) => {
    const text = statementText(q.includePending, q.after !== undefined, (i) => `$${i}`);
    return (await client.unsafe(text, argsOf(accountId, q)).values()).length;
  };
  close = () => client.close();
}

let next = Number(values.offset);
const deadline = performance.now() + Number(values.seconds) * 1000;
let pages = 0;
let rows = 0;
let busyMs = 0;
let cpuUs = 0;
while (performance.now() < deadline) {
  const { accountId, query } = queries[next++ % queries.length] as (typeof queries)[number];
  const started = performance.now();
  const cpuStarted = threadCpuMicros();
  rows += await read(accountId, query);
  cpuUs += threadCpuMicros() - cpuStarted;
  busyMs += performance.now() - started;
  pages++;
}
await close();
console.log(
  JSON.stringify({
    pages,
    usPerPage: (busyMs * 1000) / pages,
    cpuUsPerPage: cpuUs / pages,
    rowsPerPage: rows / pages,
  }),
);
process.exit(0);
