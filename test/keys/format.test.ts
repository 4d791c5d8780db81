import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import {
  apiKeyScanPattern,
  displayPrefix,
  generateApiKey,
  hashApiKey,
  isWellFormedApiKey,
} from "../../src/keys/format.ts";

const specRegex = /svk_[A-Za-z0-9_-]{8}_[A-Za-z0-9_-]{43}/;

describe("API key format (spec 2)", () => {
  test("a generated key is svk_ + 8 + _ + 43 characters of the base64url alphabet", () => {
    for (let i = 0; i < 200; i++) {
      const key = generateApiKey();
      expect(key).toHaveLength(56);
      expect(key).toMatch(new RegExp(`^${specRegex.source}$`));
      expect(isWellFormedApiKey(key)).toBe(true);
    }
  });

  test("generated keys are distinct and use the whole alphabet (CSPRNG, not a fixed subset)", () => {
    const keys = Array.from({ length: 500 }, generateApiKey);
    expect(new Set(keys).size).toBe(keys.length);
    const seen = new Set(keys.flatMap((key) => [...key.slice(4, 12), ...key.slice(13)]));
    // 64 symbols, 25,500 draws: every symbol shows up.
    expect(seen.size).toBe(64);
  });

  test("parsing matches the spec's regex against the whole string only", () => {
    const key = generateApiKey();
    expect(isWellFormedApiKey(`${key}x`)).toBe(false);
    expect(isWellFormedApiKey(`x${key}`)).toBe(false);
    expect(isWellFormedApiKey(`${key}\n`)).toBe(false);
    expect(isWellFormedApiKey(key.slice(0, -1))).toBe(false);
    expect(isWellFormedApiKey(key.replace("svk_", "sk_x"))).toBe(false);
    expect(isWellFormedApiKey(`${key.slice(0, 20)}+${key.slice(21)}`)).toBe(false);
    expect(isWellFormedApiKey(`${key.slice(0, 12)}-${key.slice(13)}`)).toBe(false);
  });

  test("the 8-character id part may itself contain _ and -", () => {
    const key = `svk_a_b-c_d__${"Z".repeat(43)}`;
    expect(key).toHaveLength(56);
    expect(isWellFormedApiKey(key)).toBe(true);
    expect(displayPrefix(key)).toBe("svk_a_b-c_d_");
  });

  test("the display prefix is the first 12 characters (svk_ plus the first 8)", () => {
    const key = generateApiKey();
    expect(displayPrefix(key)).toBe(key.slice(0, 12));
    expect(displayPrefix(key)).toMatch(/^svk_[A-Za-z0-9_-]{8}$/);
  });

  test("what is stored is the SHA-256 hex of the whole key", () => {
    const key = generateApiKey();
    expect(hashApiKey(key)).toBe(createHash("sha256").update(key).digest("hex"));
  });

  test("owners can scan text for keys with the spec's pattern", () => {
    const key = generateApiKey();
    expect(`config: token=${key};`.match(apiKeyScanPattern)).toEqual([key]);
  });
});
