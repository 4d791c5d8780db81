// The master key derives webhook signing secrets (docs/security.md "What is secret, and where
// it lives"). It lives outside the database: `<data dir>/master.key` (mode 0600, created at
// first start) or SVC_MASTER_KEY. Never logged.
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBase64Url } from "./tokens.ts";

export const masterKeyFileName = "master.key";
const masterKeyBytes = 32;

export class MasterKeyError extends Error {
  override name = "MasterKeyError";
}

export interface MasterKey {
  bytes: Uint8Array;
  /** Where it came from, for messages (never the value). */
  source: "env" | "file";
  path?: string;
}

/** The key's bytes from the text of SVC_MASTER_KEY or a key file (`origin` names it in errors). */
export function parseMasterKey(text: string, origin: string): Uint8Array {
  const trimmed = text.trim();
  const bytes = /^[0-9a-fA-F]{64}$/.test(trimmed)
    ? Buffer.from(trimmed, "hex")
    : /^[A-Za-z0-9_-]{43}=?$/.test(trimmed)
      ? Buffer.from(trimmed, "base64url")
      : undefined;
  if (!bytes || bytes.length !== masterKeyBytes) {
    throw new MasterKeyError(
      `${origin}: must be 32 bytes as 64 hex characters or 43 base64url characters`,
    );
  }
  return new Uint8Array(bytes);
}

export function masterKeyPath(dataDir: string): string {
  return join(dataDir, masterKeyFileName);
}

/** Reads SVC_MASTER_KEY or the key file, creating the file (0600) when `create` is set. */
export function loadMasterKey(
  dataDir: string,
  options: { env?: Record<string, string | undefined>; create: boolean },
): MasterKey {
  const fromEnv = (options.env ?? process.env).SVC_MASTER_KEY;
  if (fromEnv) return { bytes: parseMasterKey(fromEnv, "SVC_MASTER_KEY"), source: "env" };
  const path = masterKeyPath(dataDir);
  if (!existsSync(path)) {
    if (!options.create) {
      throw new MasterKeyError(
        `${path} is missing but webhook endpoints depend on it; restore it from your backup or set SVC_MASTER_KEY`,
      );
    }
    // The data dir holds nothing else yet when the data lives in PostgreSQL.
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    // wx: never overwrite a key another process created a moment ago; use that one instead.
    try {
      writeFileSync(path, `${randomBase64Url(masterKeyBytes)}\n`, { mode: 0o600, flag: "wx" });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  const mode = statSync(path).mode & 0o777;
  if (mode & 0o077) chmodSync(path, 0o600);
  return { bytes: parseMasterKey(readFileSync(path, "utf8"), path), source: "file", path };
}
