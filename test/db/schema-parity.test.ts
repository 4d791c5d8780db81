// The two schemas declare the same database: table, column and index names, keys, nullability,
// defaults and foreign keys, and columns that give feature code the same kind of value. Any
// difference fails here before it can make one engine behave unlike the other.
import { describe, expect, test } from "bun:test";
import { type AnyColumn, getTableColumns } from "drizzle-orm";
import { type PgTable, getTableConfig as pgConfig } from "drizzle-orm/pg-core";
import { type SQLiteTable, getTableConfig as sqliteConfig } from "drizzle-orm/sqlite-core";
import { copyOrder } from "../../src/db/copy.ts";
import * as postgres from "../../src/db/schema/postgres.ts";
import * as sqlite from "../../src/db/schema/sqlite.ts";

type Exports = Record<string, unknown>;
const sqliteTables = sqlite as unknown as Record<string, SQLiteTable>;
const postgresTables = postgres as unknown as Record<string, PgTable>;
const tableExports = (module: Exports) =>
  Object.keys(module)
    .filter((name) => typeof module[name] === "object" && module[name] !== null)
    .sort();

/** What feature code sees of a column's values. */
function valueKind(column: AnyColumn): string {
  const type = column.getSQLType().toLowerCase();
  const mode = (column as unknown as { mode?: string }).mode;
  if (column.dataType === "date" || mode === "timestamp_ms") return "date";
  if (column.columnType === "PgCustomColumn") {
    if (type === "bigint") return "date";
    if (type.startsWith("text")) return "string";
  }
  if (column.dataType === "boolean") return "boolean";
  if (column.dataType === "number" || type === "integer" || type === "bigint") return "number";
  return column.dataType;
}

function describeColumns(columns: Record<string, AnyColumn>) {
  return Object.fromEntries(
    Object.entries(columns).map(([property, column]) => [
      property,
      {
        name: column.name,
        kind: valueKind(column),
        notNull: column.notNull,
        primary: column.primary,
        hasDefault: column.hasDefault,
        default:
          column.default === undefined || typeof column.default === "object"
            ? null
            : column.default,
      },
    ]),
  );
}

describe("the SQLite and PostgreSQL schemas", () => {
  test("declare the same tables", () => {
    expect(tableExports(postgres as Exports)).toEqual(tableExports(sqlite as Exports));
  });

  for (const name of tableExports(sqlite as Exports)) {
    test(`${name}: same table, columns, keys, indexes and foreign keys`, () => {
      const lite = sqliteTables[name] as SQLiteTable;
      const pg = postgresTables[name] as PgTable;
      const a = sqliteConfig(lite);
      const b = pgConfig(pg);
      expect(b.name).toBe(a.name);
      expect(describeColumns(getTableColumns(pg))).toEqual(describeColumns(getTableColumns(lite)));
      const indexes = (list: { config: { name: string; unique: boolean; columns: unknown[] } }[]) =>
        list
          .map((index) => ({
            name: index.config.name,
            unique: index.config.unique,
            columns: index.config.columns.map((c) => (c as AnyColumn).name),
          }))
          .sort((x, y) => x.name.localeCompare(y.name));
      expect(indexes(b.indexes as never)).toEqual(indexes(a.indexes as never));
      const keys = (list: { columns: AnyColumn[] }[]) =>
        list.map((key) => key.columns.map((c) => c.name));
      expect(keys(b.primaryKeys)).toEqual(keys(a.primaryKeys));
      const foreign = (
        list: {
          reference(): { columns: AnyColumn[]; foreignColumns: AnyColumn[] };
          onDelete?: string;
        }[],
      ) =>
        list
          .map((fk) => {
            const ref = fk.reference();
            return `${ref.columns.map((c) => c.name)} -> ${ref.foreignColumns.map((c) => c.name)} on delete ${fk.onDelete}`;
          })
          .sort();
      expect(foreign(b.foreignKeys as never)).toEqual(foreign(a.foreignKeys as never));
    });
  }
});

describe("svc db copy", () => {
  test("copies every table of the schema (copyOrder names each exactly once)", () => {
    expect([...copyOrder].sort() as string[]).toEqual(tableExports(postgres as unknown as Exports));
  });
});
