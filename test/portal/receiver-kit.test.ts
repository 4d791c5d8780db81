// The receiver kit page shows the kit in the repository, not a copy that could drift: the texts
// are inlined from examples/receiver when the portal is bundled.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { receiverKitFiles } from "../../admin-ui/receiver-kit/files.ts";

const kitDir = join(import.meta.dir, "../../examples/receiver");

/** The kit's files on disk, without what running Python leaves behind. */
function filesOnDisk(): string[] {
  return (
    readdirSync(kitDir, { recursive: true, withFileTypes: true }) as import("node:fs").Dirent[]
  )
    .filter((entry) => entry.isFile() && !entry.name.endsWith(".pyc"))
    .map((entry) => join(entry.parentPath, entry.name).slice(kitDir.length + 1))
    .sort();
}

describe("receiver kit in the portal", () => {
  test("every file of examples/receiver is offered, and nothing else", () => {
    expect(receiverKitFiles.map((f) => f.path).sort()).toEqual(filesOnDisk());
  });

  test("each file's text is the repository's file, byte for byte", () => {
    for (const file of receiverKitFiles) {
      expect({ path: file.path, text: file.text }).toEqual({
        path: file.path,
        text: readFileSync(join(kitDir, file.path), "utf8"),
      });
    }
  });

  test("downloads are saved under the file's own name", () => {
    for (const file of receiverKitFiles) expect(file.path.endsWith(file.fileName)).toBe(true);
  });
});
