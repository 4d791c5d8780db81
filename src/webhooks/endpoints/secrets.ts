// Signing secrets (docs/security.md "What is secret, and where it lives"): whsec_ +
// base64url(HMAC-SHA256(master key, endpoint id + per-rotation salt)). The database keeps only the
// salt and the secret's SHA-256, so a stolen database alone yields no secret; a new salt (rotation)
// retires the old secret at once because every attempt derives the secret from the current salt.
import { createHmac } from "node:crypto";
import type { MasterKey } from "../../crypto/master-key.ts";
import { randomBase64Url, sha256Hex } from "../../crypto/tokens.ts";

export const signingSecretPrefix = "whsec_";

function newSecretSalt(): string {
  return randomBase64Url(16);
}

export function deriveSigningSecret(
  masterKey: MasterKey,
  endpointId: string,
  salt: string,
): string {
  const mac = createHmac("sha256", masterKey.bytes).update(`${endpointId}${salt}`).digest();
  return `${signingSecretPrefix}${mac.toString("base64url")}`;
}

/** Endpoints whose derived secret a cache keeps, at most (then it starts over). */
const secretCacheSize = 4096;

/**
 * deriveSigningSecret remembered per endpoint for its current salt (the dispatcher's, one HMAC
 * per attempt saved): a rotation brings a new salt, so the next attempt derives the new secret,
 * as the rule above says. It holds nothing the master key in memory does not already give.
 */
export function createSigningSecretCache(
  masterKey: MasterKey,
): (endpointId: string, salt: string) => string {
  const derived = new Map<string, { salt: string; secret: string }>();
  return (endpointId, salt) => {
    const known = derived.get(endpointId);
    if (known?.salt === salt) return known.secret;
    const secret = deriveSigningSecret(masterKey, endpointId, salt);
    if (derived.size >= secretCacheSize) derived.clear();
    derived.set(endpointId, { salt, secret });
    return secret;
  };
}

function signingSecretHash(secret: string): string {
  return sha256Hex(secret);
}

/** A fresh salt, the secret it derives (to show once) and the hash to store. */
export function issueSigningSecret(
  masterKey: MasterKey,
  endpointId: string,
): { salt: string; secret: string; hash: string } {
  const salt = newSecretSalt();
  const secret = deriveSigningSecret(masterKey, endpointId, salt);
  return { salt, secret, hash: signingSecretHash(secret) };
}
