import { describe, expect, test } from "bun:test";
import { join, relative } from "node:path";
import { importGraph, srcDir } from "../support/import-graph.ts";

// Modules under src/ do not import each other in a circle, not even
// through type-only imports (a circle of types is still a circle to a reader).

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
  test("the scan sees imports (the runtime imports the webhook dispatcher's start)", () => {
    const graph = importGraph();
    expect(graph.get(join(srcDir, "server/runtime.ts"))).toContain(
      join(srcDir, "webhooks/delivery/background.ts"),
    );
  });

  test("no module imports itself through a circle, type-only imports included", () => {
    const found = circles(importGraph()).map((c) =>
      c.map((file) => relative(srcDir, file)).join(" -> "),
    );
    expect(found).toEqual([]);
  });
});
