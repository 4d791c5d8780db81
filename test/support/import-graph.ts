// The import graph of src/ as the code tests read it: every relative import and export of every
// module, type-only and dynamic imports included (a circle of types is still a circle to a
// reader, and a lazy import is still a dependency).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

export const srcDir = resolve(import.meta.dir, "../../src");

export function sourceFiles(dir: string = srcDir): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

/** Each module's relative imports, resolved to absolute paths. */
export function importGraph(files: string[] = sourceFiles()): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    const targets = [
      ...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;'"]*?\bfrom\s+["'](\.[^"']+)["']/g),
      ...text.matchAll(/\bimport\(\s*["'](\.[^"']+)["']\s*\)/g),
    ].map((m) => resolve(dirname(file), m[1] as string));
    graph.set(file, targets);
  }
  return graph;
}
