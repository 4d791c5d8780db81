import { randomBytes } from "node:crypto";

/** `byteCount` bytes from the CSPRNG, base64url without padding. */
export function randomBase64Url(byteCount: number): string {
  return randomBytes(byteCount).toString("base64url");
}

/** A string of exactly `length` characters drawn uniformly from `alphabet` (CSPRNG, no modulo bias). */
export function randomFromAlphabet(alphabet: string, length: number): string {
  if (alphabet.length < 2 || alphabet.length > 256)
    throw new Error("alphabet must have 2..256 symbols");
  const limit = 256 - (256 % alphabet.length);
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < limit) out += alphabet[byte % alphabet.length];
      if (out.length === length) break;
    }
  }
  return out;
}

export function sha256Hex(value: string | Uint8Array): string {
  // Bun's one-shot SHA-256: ~3x faster than node:crypto's createHash (on every /v1 request).
  return Bun.SHA256.hash(value, "hex");
}

/**
 * Constant-time string comparison: every character is compared, so the time depends only on the
 * length (unequal lengths are rejected first). Without allocating buffers: it runs on every /v1
 * request.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}
