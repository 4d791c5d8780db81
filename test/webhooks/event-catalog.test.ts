// The event catalog (src/webhooks/events/types.ts) is the one list of event types: the code
// derives its lists from it, and the copies the compiler cannot see (the receiver kit, which is
// self-contained so it can be copied; the docs' tables; SQL migrations) are compared with it
// here, so adding a type to the catalog fails until each copy names it too.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { events } from "../../src/db/schema/sqlite.ts";
import { eventDataSchemas } from "../../src/webhooks/events/data.ts";
import { parseEventTypeFilter } from "../../src/webhooks/events/event-filter.ts";
import { accountEventTypes, eventCatalog, eventTypes } from "../../src/webhooks/events/types.ts";

const root = resolve(import.meta.dir, "../..");
const read = (path: string) => readFileSync(join(root, path), "utf8");

/** The event types a Markdown table names in its first column, in the section under `heading`. */
function tableTypes(markdown: string, heading: string): string[] {
  const start = markdown.indexOf(`${heading}\n`);
  expect(start).toBeGreaterThanOrEqual(0);
  const level = heading.split(" ")[0] as string;
  const rest = markdown.slice(start + heading.length);
  const end = rest.search(new RegExp(`\\n#{1,${level.length}} `));
  const section = end === -1 ? rest : rest.slice(0, end);
  return [...section.matchAll(/^\| `([a-z_]+(?:\.[a-z_]+)+)` \|/gm)].map((m) => m[1] as string);
}

describe("the event catalog", () => {
  test("account event types are the catalog's account entries; the filter takes only those", () => {
    const marked: string[] = eventTypes.filter((type) => eventCatalog[type].account);
    expect<string[]>([...accountEventTypes]).toEqual(marked);
    expect(parseEventTypeFilter([...accountEventTypes])).toEqual([...accountEventTypes].sort());
    for (const type of eventTypes.filter((t) => !eventCatalog[t].account)) {
      expect(() => parseEventTypeFilter([type])).toThrow("always reach the endpoint");
    }
  });

  test("each entry's example is valid data of its own type", () => {
    for (const type of eventTypes) {
      const valid = eventDataSchemas[type].safeParse(eventCatalog[type].example.data).success;
      expect({ type, valid }).toEqual({ type, valid: true });
    }
  });

  test("the events table stores exactly the catalog's types", () => {
    expect(events.type.enumValues).toEqual([...eventTypes]);
  });

  test("a SQL migration that names an event type names every one (no stale value list)", () => {
    for (const engine of ["sqlite", "postgres"]) {
      const dir = join(root, "migrations", engine);
      for (const name of readdirSync(dir).filter((n) => n.endsWith(".sql"))) {
        const sql = readFileSync(join(dir, name), "utf8");
        const named = eventTypes.filter((type) => sql.includes(`'${type}'`));
        if (named.length > 0) expect({ name, named }).toEqual({ name, named: [...eventTypes] });
      }
    }
  });

  test("the receiver kit's SvcEventData names every type with exactly its data fields", () => {
    const kit = read("examples/receiver/verify.ts");
    const body = kit.slice(kit.indexOf("export interface SvcEventData {"));
    const block = body.slice(0, body.indexOf("\n}\n"));
    const kitTypes = [...block.matchAll(/^ {2}"([a-z_.]+)": \{/gm)].map((m) => m[1] as string);
    expect(kitTypes).toEqual([...eventTypes]);
    for (const type of eventTypes) {
      const from = block.indexOf(`"${type}": {`) + `"${type}": {`.length;
      let depth = 1;
      let to = from;
      while (depth > 0 && to < block.length) {
        const ch = block[to++];
        if (ch === "{") depth++;
        if (ch === "}") depth--;
      }
      const fields = [...block.slice(from, to - 1).matchAll(/\b([a-z_]+)\??:/g)].map((m) => m[1]);
      expect({ type, fields }).toEqual({
        type,
        fields: Object.keys(eventDataSchemas[type].shape),
      });
    }
  });

  test("the contract's and the API guide's event tables list every type, in the catalog's order", () => {
    expect(tableTypes(read("docs/contract.md"), "## Events")).toEqual([...eventTypes]);
    expect(tableTypes(read("docs/api-guide.md"), "### Events and the read that follows")).toEqual([
      ...eventTypes,
    ]);
  });
});
