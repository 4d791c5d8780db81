// A Bun macro (imported `with { type: "macro" }`): runs while the portal is bundled, by
// `bun build --compile` or by `svc serve` from source, and inlines the receiver kit's files as
// strings. The portal therefore shows exactly the kit in examples/receiver, with no copy kept
// anywhere else, and nothing is read from disk at run time (the binary has no examples/ folder).
import { readFileSync } from "node:fs";
import { join } from "node:path";

const receiverKitDir = join(import.meta.dir, "../../examples/receiver");

/** The text of `examples/receiver/<path>`, read when the bundle is built. */
export function receiverKitText(path: string): string {
  return readFileSync(join(receiverKitDir, path), "utf8");
}
