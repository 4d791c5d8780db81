import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

// Modules under src/ do not import each other in a circle, not even
// through type-only imports (a circle of types is still a circle to a reader).
const srcDir = resolve(import.meta.dir, "../../src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

function importGraph(files: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    const targets = [
      ...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;'"]*?\bfrom\s+["'](\.[^"']+)["']/g),
    ].map((m) => resolve(dirname(file), m[1] as string));
    graph.set(file, targets);
  }
  return graph;
}

function circles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (node: string) => {
    state.set(node, "open");
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === "open") found.push([...path.slice(path.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(node, "done");
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return found;
}

describe("import graph of src/", () => {
  test("the scan sees imports (the runtime imports the webhook workers)", () => {
    const graph = importGraph(sourceFiles(srcDir));
    expect(graph.get(join(srcDir, "runtime.ts"))).toContain(join(srcDir, "webhooks/workers.ts"));
  });

  test("no module imports itself through a circle, type-only imports included", () => {
    const found = circles(importGraph(sourceFiles(srcDir))).map((c) =>
      c.map((file) => relative(srcDir, file)).join(" -> "),
    );
    expect(found).toEqual([]);
  });
});
