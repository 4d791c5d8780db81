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
