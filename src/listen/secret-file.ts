// The `svc listen` signing secrets: one per server (`--api-url` origin), machine and
// user, so a developer sets it in their receiver once, and a secret shared with one server's
// receivers is never the one signing another server's events. Made with the CSPRNG on first use
// and kept in a file only the user can read, under the user's configuration directory (not a
// data dir: `svc listen` needs none).
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { randomBase64Url } from "../crypto/tokens.ts";
import { signingSecretPrefix } from "../webhooks/endpoints/secrets.ts";

const secretPattern = /^whsec_[A-Za-z0-9_-]{43}$/;

/** A server's origin as a file name: `https-svc.example.com-443`, `http-127.0.0.1-8080`. */
function serverFileName(apiUrl: URL): string {
  const port = apiUrl.port || (apiUrl.protocol === "https:" ? "443" : "80");
  const host = apiUrl.hostname.replace(/^\[|\]$/g, "").replace(/[^A-Za-z0-9.-]/g, "_");
  return `${apiUrl.protocol.replace(":", "")}-${host}-${port}`;
}

/**
 * $SVC_LISTEN_SECRET_FILE (one file, whatever the server), else
 * $XDG_CONFIG_HOME/svc/listen-secrets/<server>, else ~/.config/svc/listen-secrets/<server>.
 */
export function listenSecretPath(env: Record<string, string | undefined>, apiUrl: URL): string {
  if (env.SVC_LISTEN_SECRET_FILE) return env.SVC_LISTEN_SECRET_FILE;
  const configHome = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), ".config");
  return join(configHome, "svc", "listen-secrets", serverFileName(apiUrl));
}

export class ListenSecretError extends Error {
  override name = "ListenSecretError";
}

/** Reads the secret, creating it (and its directory, 0700) on first use; the file is 0600. */
export function loadOrCreateListenSecret(path: string): { secret: string; created: boolean } {
  let text: string | undefined;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
      throw new ListenSecretError(
        `cannot read the listen secret ${path} (${(error as NodeJS.ErrnoException).code})`,
      );
    }
  }
  if (text !== undefined) {
    const secret = text.trim();
    if (!secretPattern.test(secret)) {
      throw new ListenSecretError(
        `${path} does not hold a listen secret (whsec_ and 43 characters); delete it to make a new one`,
      );
    }
    if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
    return { secret, created: false };
  }
  const secret = `${signingSecretPrefix}${randomBase64Url(32)}`;
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    // "wx": never overwrite a secret another run wrote in the meantime.
    writeFileSync(path, `${secret}\n`, { mode: 0o600, flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return loadOrCreateListenSecret(path);
    throw new ListenSecretError(
      `cannot write the listen secret ${path} (${(error as NodeJS.ErrnoException).code})`,
    );
  }
  return { secret, created: true };
}
