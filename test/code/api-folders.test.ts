import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { importGraph, sourceFiles, srcDir } from "../support/import-graph.ts";

// The /v1 API is one folder per resource (route, read, schema, examples together) over two
// shared floors, `shared/` (helpers several resources use) and `middleware/`, with the reference
// (`reference/`, which documents the resources) above them and the composition of the app
// (`v1.ts`) on top. A resource reads another's folder only where a comment on the line above
// the import says why.

const apiDir = join(srcDir, "api");
const floors = new Set(["shared", "middleware"]);

/** `root` (a file directly in src/api), `shared`, `middleware`, `reference` or a resource's name. */
function folderOf(file: string): string {
  const parts = relative(apiDir, file).split(sep);
  return parts.length === 1 ? "root" : (parts[0] as string);
}

const isResource = (folder: string) =>
  folder !== "root" && folder !== "reference" && !floors.has(folder);

/** The targets of the static imports that have a comment on the line directly above them. */
function commentedImports(file: string): Set<string> {
  const text = readFileSync(file, "utf8");
  const found = new Set<string>();
  const statement =
    /(?:^|\n)((?:[ \t]*\/\/[^\n]*\n)*)[ \t]*(?:import|export)\b[^;'"]*?\bfrom\s+["'](\.[^"']+)["']/g;
  for (const match of text.matchAll(statement)) {
    const comment = match[1] as string;
    const commentStart = (match.index ?? 0) + match[0].indexOf(comment);
    // The file's own header comment above its first import says nothing about that import.
    const header = text
      .slice(0, commentStart)
      .split("\n")
      .every((line) => line.trim() === "" || line.trim().startsWith("//"));
    if (comment.trim() !== "" && !header) found.add(resolve(dirname(file), match[2] as string));
  }
  return found;
}

/** Every import inside src/api that breaks the folder rule, with the rule it breaks. */
function offendingImports(): string[] {
  const files = sourceFiles(apiDir);
  const graph = importGraph(files);
  const offences: string[] = [];
  for (const [file, targets] of graph) {
    const from = folderOf(file);
    const commented = commentedImports(file);
    for (const target of targets) {
      if (!target.startsWith(apiDir + sep)) continue;
      const to = folderOf(target);
      if (to === from) continue;
      const where = `src/${relative(srcDir, file)} imports src/${relative(srcDir, target)}`;
      if (to === "root" && from !== "root")
        offences.push(`${where}: v1.ts composes the app, nothing imports it`);
      else if (floors.has(from) && (isResource(to) || to === "reference"))
        offences.push(`${where}: ${from}/ is below the resources and the reference`);
      else if (isResource(from) && to === "reference")
        offences.push(`${where}: the reference documents the resources, not the other way round`);
      else if (isResource(from) && isResource(to) && !commented.has(target))
        offences.push(
          `${where}: another resource's folder, without a comment on the line above saying why`,
        );
    }
  }
  return offences;
}

describe("folders of src/api", () => {
  test("the scan sees a resource reading another's folder, and the comment that says why", () => {
    const file = join(apiDir, "transactions/read.ts");
    const target = join(apiDir, "accounts/read.ts");
    expect(importGraph([file]).get(file)).toContain(target);
    expect(commentedImports(file).has(target)).toBe(true);
  });

  test("the root of src/api holds only v1.ts, the composition of the /v1 app", () => {
    const rootFiles = sourceFiles(apiDir)
      .filter((file) => folderOf(file) === "root")
      .map((file) => relative(apiDir, file));
    expect(rootFiles).toEqual(["v1.ts"]);
  });

  test("resources import only shared/, middleware/ and lower layers (another resource's folder only with a comment saying why); shared/ and middleware/ import no resource; nothing imports v1.ts", () => {
    expect(offendingImports()).toEqual([]);
  });
});
