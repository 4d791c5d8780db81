// The client drizzle gets on SQLite (src/db/sqlite-statement-cache.ts): each SQL text compiled once
// per connection, least recently used dropped first, never finalized while a query may hold it.
import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { withStatementCache } from "../../src/db/sqlite-statement-cache.ts";

let connection: Database;
afterEach(() => connection?.close());

function open() {
  connection = new Database(":memory:", { strict: true });
  connection.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)");
  connection.exec("INSERT INTO t (id, name) VALUES (1, 'one'), (2, 'two'), (3, 'three')");
  return connection;
}

describe("the statement cache drizzle runs on", () => {
  test("the same SQL text is compiled once and its statement given again", () => {
    const client = withStatementCache(open());
    const first = client.prepare("SELECT name FROM t WHERE id = ?");
    const again = client.prepare("SELECT name FROM t WHERE id = ?");
    expect(again).toBe(first);
    expect(first.values(2)).toEqual([["two"]]);
    expect(again.values(3)).toEqual([["three"]]);
    expect(client.prepare("SELECT name FROM t WHERE id > ?")).not.toBe(first);
  });

  test("past the limit the least recently used text is dropped, and its statement still runs", () => {
    const client = withStatementCache(open(), 2);
    const a = client.prepare("SELECT 'a'");
    const b = client.prepare("SELECT 'b'");
    expect(client.prepare("SELECT 'a'")).toBe(a); // a is now the most recently used
    client.prepare("SELECT 'c'"); // drops b
    expect(client.prepare("SELECT 'a'")).toBe(a);
    expect(client.prepare("SELECT 'b'")).not.toBe(b);
    // Not finalized: a query prepared for reuse may still hold it.
    expect(b.values()).toEqual([["b"]]);
  });

  test("a very long text (a large multi-row insert) is compiled each time and not kept", () => {
    const client = withStatementCache(open());
    const long = `SELECT 1 WHERE 1 IN (${Array.from({ length: 10_000 }, () => "1").join(",")})`;
    expect(client.prepare(long)).not.toBe(client.prepare(long));
  });

  test("drizzle's one-time queries through it give each call's own values, before and after a schema change", () => {
    const db = drizzle({ client: withStatementCache(open()) as Database });
    const nameOf = (id: number) =>
      db.all<{ name: string }>(sql`SELECT name FROM t WHERE id = ${id}`)[0]?.name;
    expect([nameOf(1), nameOf(2), nameOf(3), nameOf(4)]).toEqual([
      "one",
      "two",
      "three",
      undefined,
    ]);
    db.run(sql`INSERT INTO t (id, name) VALUES (${4}, ${"four"})`);
    db.run(sql`INSERT INTO t (id, name) VALUES (${5}, ${"five"})`);
    expect(nameOf(5)).toBe("five");
    connection.exec("ALTER TABLE t ADD COLUMN extra TEXT DEFAULT 'x'");
    expect(db.all(sql`SELECT * FROM t WHERE id = ${4}`)).toEqual([
      { id: 4, name: "four", extra: "x" },
    ]);
    expect(nameOf(4)).toBe("four");
  });

  test("a failed statement (a constraint) leaves the cached statement usable", () => {
    const db = drizzle({ client: withStatementCache(open()) as Database });
    const insert = (id: number, name: string) =>
      db.run(sql`INSERT INTO t (id, name) VALUES (${id}, ${name})`);
    let caught: unknown;
    try {
      insert(1, "again");
    } catch (error) {
      caught = error;
    }
    expect(String((caught as Error).cause)).toContain("UNIQUE constraint failed");
    insert(6, "six");
    expect(db.all(sql`SELECT name FROM t WHERE id = ${6}`)).toEqual([{ name: "six" }]);
  });
});
