// The import graph of src/ as the code tests read it: every .ts/.tsx file and the relative
// modules it imports (type-only imports included), as absolute paths.
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

const staticImport = /(?:^|\n)\s*(?:import|export)\b[^;'"]*?\bfrom\s+["'](\.[^"']+)["']/g;
const dynamicImport = /\bimport\(\s*["'](\.[^"']+)["']\s*\)/g;

export interface Import {
  /** As written in the file, e.g. "../services.ts". */
  specifier: string;
  /** The absolute path it names. */
  target: string;
}

/**
 * The relative modules `file` imports. `dynamic` adds `import("./x")` calls, which a circle
 * check leaves out (loading on demand is how a circle is broken) but a "never imports" rule
 * must see.
 */
export function importsOf(file: string, options: { dynamic?: boolean } = {}): Import[] {
  const text = readFileSync(file, "utf8");
  const matches = [
    ...text.matchAll(staticImport),
    ...(options.dynamic ? text.matchAll(dynamicImport) : []),
  ];
  return matches.map((m) => {
    const specifier = m[1] as string;
    return { specifier, target: resolve(dirname(file), specifier) };
  });
}

export function importGraph(
  files: string[] = sourceFiles(),
  options: { dynamic?: boolean } = {},
): Map<string, string[]> {
  return new Map(files.map((file) => [file, importsOf(file, options).map((i) => i.target)]));
}
