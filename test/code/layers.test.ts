import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { importGraph, sourceFiles, srcDir } from "../support/import-graph.ts";

// The house by height (docs/architecture.md "Layers"): a module imports modules of its own floor
// and the floors below it, never one above; two folders never import each other. Type-only and
// lazy imports count too.
const floors: readonly (readonly string[])[] = [
  ["core"],
  ["db", "crypto", "log", "config", "metrics", "limits", "net", "scheduling", "dev"],
  ["accounts", "keys", "banking", "webhooks", "mail", "backup", "setup", "jobs", "cluster"],
  ["http"],
  ["api", "portal"],
  ["server"],
  ["cli", "listen"],
  ["main.ts"],
];

/** The webhook feature's parts, lowest first: each imports only the parts below it. */
const webhookParts = ["events", "endpoints", "delivery", "delivery-log"] as const;

type Graph = Map<string, string[]>;
const floorOf = new Map(floors.flatMap((names, floor) => names.map((name) => [name, floor])));

/** The top folder (or root file) of a path under src/. */
function topOf(path: string): string {
  return relative(srcDir, path).split("/")[0] as string;
}

function edges(graph: Graph): [string, string][] {
  return [...graph].flatMap(([from, targets]) =>
    targets.filter((to) => to.startsWith(`${srcDir}/`)).map((to): [string, string] => [from, to]),
  );
}

const shown = (from: string, to: string) =>
  `${relative(srcDir, from)} imports ${relative(srcDir, to)}`;

/** Every import from a lower floor to a higher one, named. */
export function upwardImports(graph: Graph): string[] {
  return edges(graph).flatMap(([from, to]) => {
    const [a, b] = [floorOf.get(topOf(from)), floorOf.get(topOf(to))];
    if (a === undefined || b === undefined || b <= a) return [];
    return [`${shown(from, to)} (floor ${a}: ${topOf(from)} below floor ${b}: ${topOf(to)})`];
  });
}

/** Every pair of folders that import each other, each with one import of each way. */
export function mutualFolders(graph: Graph, folderOf: (path: string) => string): string[] {
  const example = new Map<string, string>();
  for (const [from, to] of edges(graph)) {
    const [a, b] = [folderOf(from), folderOf(to)];
    if (a !== b && !example.has(`${a} -> ${b}`)) example.set(`${a} -> ${b}`, shown(from, to));
  }
  return [...example.keys()].flatMap((key) => {
    const [a, b] = key.split(" -> ") as [string, string];
    const back = example.get(`${b} -> ${a}`);
    return a < b && back ? [`${a} <-> ${b}: ${example.get(key)}; ${back}`] : [];
  });
}

function webhookPartOf(path: string): string | undefined {
  const parts = relative(join(srcDir, "webhooks"), path).split("/");
  return parts.length > 1 && !parts[0]?.startsWith("..") ? parts[0] : undefined;
}

describe("the layers of src/", () => {
  const graph = importGraph(sourceFiles(), { dynamic: true });

  test("every folder of src/ stands on a floor", () => {
    const unplaced = readdirSync(srcDir).filter((name) => !floorOf.has(name));
    expect(unplaced).toEqual([]);
  });

  test("no module imports from a floor above its own", () => {
    expect(upwardImports(graph)).toEqual([]);
  });

  test("no two folders of src/ import each other", () => {
    expect(mutualFolders(graph, topOf)).toEqual([]);
  });

  test("the webhook parts stand in order: events < endpoints < delivery < delivery log", () => {
    const rank = (path: string) => webhookParts.indexOf(webhookPartOf(path) as never);
    const upward = edges(graph).flatMap(([from, to]) => {
      const [a, b] = [rank(from), rank(to)];
      return a >= 0 && b > a ? [shown(from, to)] : [];
    });
    expect(upward).toEqual([]);
    const loose = readdirSync(join(srcDir, "webhooks")).filter(
      (name) => !(webhookParts as readonly string[]).includes(name),
    );
    expect(loose).toEqual([]);
  });

  test("the checks name an upward import and a pair of folders importing each other", () => {
    const at = (path: string) => join(srcDir, path);
    const bad: Graph = new Map([
      [at("core/errors.ts"), [at("server/app.ts")]],
      [at("banking/sync.ts"), [at("webhooks/events/write.ts")]],
      [at("webhooks/events/write.ts"), [at("banking/model.ts")]],
    ]);
    expect(upwardImports(bad)).toEqual([
      "core/errors.ts imports server/app.ts (floor 0: core below floor 5: server)",
    ]);
    expect(mutualFolders(bad, topOf)).toEqual([
      "banking <-> webhooks: banking/sync.ts imports webhooks/events/write.ts; webhooks/events/write.ts imports banking/model.ts",
    ]);
  });
});
