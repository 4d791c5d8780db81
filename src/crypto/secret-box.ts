// Secrets at rest (spec security rules): provider session ids and
// access URLs are sealed with AES-256-GCM under a key derived from the master key with HKDF and
// a purpose label, so a key for one purpose never opens another purpose's secrets.
//
// Sealed format (text, safe in any column): "sb1." + base64url(iv[12] || ciphertext || tag[16]).
// The version prefix lets a later format (or key rotation) be told apart from this one.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

const version = "sb1";
const ivBytes = 12;
const tagBytes = 16;

export class SecretBoxError extends Error {
  override name = "SecretBoxError";
}

export interface SecretBox {
  seal(plaintext: string): string;
  open(sealed: string): string;
}

/** Derives the purpose's 256-bit key from the master key (HKDF-SHA256, label as `info`). */
function deriveKey(masterKey: Uint8Array, purpose: string): Buffer {
  if (masterKey.length < 32) throw new SecretBoxError("the master key must be at least 32 bytes");
  if (!purpose) throw new SecretBoxError("a secret box needs a purpose label");
  return Buffer.from(hkdfSync("sha256", masterKey, new Uint8Array(0), `svc/${purpose}`, 32));
}

export function createSecretBox(masterKey: Uint8Array, purpose: string): SecretBox {
  const key = deriveKey(masterKey, purpose);
  // The purpose is also bound as associated data: a sealed value copied into another purpose's
  // column fails to open even if the keys were ever the same.
  const aad = Buffer.from(`${version}:${purpose}`);
  return {
    seal(plaintext) {
      const iv = randomBytes(ivBytes);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      cipher.setAAD(aad);
      const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      const sealed = Buffer.concat([iv, body, cipher.getAuthTag()]);
      return `${version}.${sealed.toString("base64url")}`;
    },
    open(sealed) {
      const dot = sealed.indexOf(".");
      const prefix = dot === -1 ? "" : sealed.slice(0, dot);
      if (prefix !== version) {
        throw new SecretBoxError(
          `sealed secret has an unknown format (expected the "${version}." prefix)`,
        );
      }
      const raw = Buffer.from(sealed.slice(dot + 1), "base64url");
      if (raw.length < ivBytes + tagBytes) throw new SecretBoxError("sealed secret is truncated");
      const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, ivBytes));
      decipher.setAAD(aad);
      decipher.setAuthTag(raw.subarray(raw.length - tagBytes));
      try {
        const body = raw.subarray(ivBytes, raw.length - tagBytes);
        return Buffer.concat([decipher.update(body), decipher.final()]).toString("utf8");
      } catch {
        throw new SecretBoxError(
          "sealed secret failed authentication: it was altered, or sealed under another master key or purpose",
        );
      }
    },
  };
}
