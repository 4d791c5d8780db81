// The API key's shape (spec 2 "API key", spec 5 rule 5): `svk_` + 8 + `_` + 43 characters from
// the base64url alphabet. The fixed shape lets owners scan code and logs for leaked keys.
import { randomFromAlphabet, sha256Hex } from "../crypto/tokens.ts";

const base64UrlAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** The spec's regex, anchored: the whole string must match (the id part may itself hold `_`). */
const apiKeyPattern = /^svk_[A-Za-z0-9_-]{8}_[A-Za-z0-9_-]{43}$/;

/** For scanning text (code, logs, history) for keys; not anchored, global. */
export const apiKeyScanPattern = /svk_[A-Za-z0-9_-]{8}_[A-Za-z0-9_-]{43}/g;

const apiKeyLength = 56;
const displayPrefixLength = 12;

/** A new key from the CSPRNG: 8 + 43 characters of 64 symbols each (~306 bits). */
export function generateApiKey(): string {
  return `svk_${randomFromAlphabet(base64UrlAlphabet, 8)}_${randomFromAlphabet(base64UrlAlphabet, 43)}`;
}

export function isWellFormedApiKey(value: string): boolean {
  return value.length === apiKeyLength && apiKeyPattern.test(value);
}

/** First 12 characters (`svk_` plus the first 8): shown in lists so owners can tell keys apart. */
export function displayPrefix(key: string): string {
  return key.slice(0, displayPrefixLength);
}

/** What is stored: SHA-256 hex of the whole key string. */
export function hashApiKey(key: string): string {
  return sha256Hex(key);
}
