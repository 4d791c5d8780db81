import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const created: string[] = [];

/** A fresh empty directory, removed when the test process exits. */
export function makeTempDir(label = "svc-test"): string {
  const dir = mkdtempSync(join(tmpdir(), `${label}-`));
  created.push(dir);
  return dir;
}

process.on("exit", () => {
  for (const dir of created) rmSync(dir, { recursive: true, force: true });
});
