import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBase64Url } from "../../src/crypto/tokens.ts";
import { makeTempDir } from "./temp.ts";

/** A token file as an operator writes one (metricsTokenFile, operatorTokenFile), mode 0600. */
export function writeTokenFile(token = randomBase64Url(32)): { path: string; token: string } {
  const path = join(makeTempDir("svc-token"), "token");
  writeFileSync(path, `${token}\n`, { mode: 0o600 });
  return { path, token };
}
