// Bearer tokens an operator gives the service in a file (metricsTokenFile, operatorTokenFile):
// a file, not a value, so a token never shows in `ps` or in the environment (Prometheus'
// `credentials_file`, systemd's LoadCredential= and Docker secrets are all files).
import { readFileSync } from "node:fs";
import type { MiddlewareHandler } from "hono";
import { ConfigError } from "../config/config.ts";
import { ApiError } from "../core/errors.ts";
import { constantTimeEqual, sha256Hex } from "../crypto/tokens.ts";

const minTokenLength = 32;
const bearerPattern = /^Bearer +(\S+) *$/i;

/** Reads and checks a token file; a bad file is a configuration error naming the setting. */
function readTokenFile(setting: string, path: string): string {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigError(
      `${setting} ${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? error})`,
    );
  }
  const token = text.trim();
  if (token.length < minTokenLength || /\s/.test(token)) {
    throw new ConfigError(
      `${setting} ${path}: must hold one token of at least ${minTokenLength} characters without spaces (e.g. from \`openssl rand -hex 32\`)`,
    );
  }
  return token;
}

/**
 * Lets a request through only with `Authorization: Bearer <the file's token>`; anything else is
 * 401 not_authenticated with `message`. Compared as SHA-256 hashes in constant time: equal
 * lengths, so the comparison says nothing about the token either.
 */
export function requireFileToken(
  setting: string,
  path: string,
  message: string,
): MiddlewareHandler {
  const expectedHash = sha256Hex(readTokenFile(setting, path));
  return async (c, next) => {
    c.header("Cache-Control", "no-store");
    const presented = bearerPattern.exec(c.req.header("authorization") ?? "")?.[1];
    if (presented === undefined || !constantTimeEqual(sha256Hex(presented), expectedHash)) {
      throw new ApiError("not_authenticated", message);
    }
    await next();
  };
}
