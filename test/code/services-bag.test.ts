import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join, relative } from "node:path";
import { importsOf, sourceFiles, srcDir } from "../support/import-graph.ts";

/**
 * Where `Services` (src/server/services.ts, everything the process shares) may be imported: the
 * composition root that builds it and the layers that hand it on. A path ending in "/" is a
 * folder. Everything else (the features) declares the narrow dependencies it needs as a type
 * of its own, and callers pass the whole bag structurally. Moving one of these files or
 * folders means moving its entry here.
 */
const allowedImporters = [
  "server/services.ts",
  "server/runtime.ts",
  "server/app.ts",
  "server/server.ts",
  "server/operator-api.ts",
  "cli/",
];

const servicesFile = join(srcDir, "server/services.ts");

function isAllowed(file: string): boolean {
  const path = relative(srcDir, file);
  return allowedImporters.some((entry) =>
    entry.endsWith("/") ? path.startsWith(entry) : path === entry,
  );
}

/** Each import of server/services.ts outside server/services.ts itself, as "file imports specifier". */
function importsOfServices(): { file: string; line: string }[] {
  return sourceFiles()
    .filter((file) => file !== servicesFile)
    .flatMap((file) =>
      importsOf(file, { dynamic: true })
        .filter((i) => i.target === servicesFile)
        .map((i) => ({ file, line: `${relative(srcDir, file)} imports ${i.specifier}` })),
    );
}

describe("the services bag (src/server/services.ts)", () => {
  test("the scan sees imports of the bag (the runtime imports it)", () => {
    expect(importsOfServices().map((i) => i.file)).toContain(join(srcDir, "server/runtime.ts"));
  });

  test("every allowed importer still exists (a moved file takes its entry along)", () => {
    const missing = allowedImporters.filter((entry) => !existsSync(join(srcDir, entry)));
    expect(missing).toEqual([]);
  });

  test("feature code never imports the services bag", () => {
    const offending = importsOfServices()
      .filter((i) => !isAllowed(i.file))
      .map((i) => i.line);
    expect(offending).toEqual([]);
  });
});
