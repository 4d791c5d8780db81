import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

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
  return createHash("sha256").update(value).digest("hex");
}

/** Constant-time string comparison; unequal lengths are rejected before comparing. */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  if (left.length !== right.length) return false;
  return timingSafeEqual(left, right);
}
