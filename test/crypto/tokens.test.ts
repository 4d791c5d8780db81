import { describe, expect, test } from "bun:test";
import { constantTimeEqual, sha256Hex } from "../../src/crypto/tokens.ts";

describe("constantTimeEqual", () => {
  test("is true only for identical strings", () => {
    const hash = sha256Hex("svk_example");
    expect(constantTimeEqual(hash, sha256Hex("svk_example"))).toBe(true);
    expect(constantTimeEqual("", "")).toBe(true);
    expect(constantTimeEqual(hash, sha256Hex("svk_other"))).toBe(false);
    // Differing only in the last or the first character.
    expect(constantTimeEqual("abcd", "abce")).toBe(false);
    expect(constantTimeEqual("abcd", "bbcd")).toBe(false);
  });

  test("rejects strings of different lengths, including a prefix", () => {
    expect(constantTimeEqual("abc", "abcd")).toBe(false);
    expect(constantTimeEqual("abcd", "")).toBe(false);
  });

  test("compares every UTF-16 code unit", () => {
    expect(constantTimeEqual("é", "e")).toBe(false);
    expect(constantTimeEqual("\u0100", "\u0000")).toBe(false);
  });
});

describe("sha256Hex", () => {
  test("is the SHA-256 of the UTF-8 bytes, in lower-case hex", () => {
    expect(sha256Hex("abc")).toBe(
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
    expect(sha256Hex(new TextEncoder().encode("abc"))).toBe(sha256Hex("abc"));
    expect(sha256Hex("é")).toBe(sha256Hex(new Uint8Array([0xc3, 0xa9])));
  });
});
