import { describe, expect, test } from "bun:test";
import { createSecretBox, SecretBoxError } from "../../src/crypto/secret-box.ts";

const masterKey = new Uint8Array(32).fill(7);
const otherKey = new Uint8Array(32).fill(8);

function flipByte(sealed: string, index: number): string {
  const [prefix, body] = sealed.split(".") as [string, string];
  const raw = Buffer.from(body, "base64url");
  raw[index] = (raw[index] ?? 0) ^ 1;
  return `${prefix}.${raw.toString("base64url")}`;
}

describe("secret box", () => {
  test("a sealed secret opens to the same text and never contains it", () => {
    const box = createSecretBox(masterKey, "provider-secrets");
    const secret = "https://user:pass@bridge.example/simplefin";
    const sealed = box.seal(secret);
    expect(sealed.startsWith("sb1.")).toBe(true);
    expect(sealed).not.toContain("pass");
    expect(box.open(sealed)).toBe(secret);
  });

  test("sealing the same text twice gives different ciphertexts (fresh IV)", () => {
    const box = createSecretBox(masterKey, "provider-secrets");
    expect(box.seal("x")).not.toBe(box.seal("x"));
  });

  test("a flipped byte in the IV, body or tag is refused with a clear error", () => {
    const box = createSecretBox(masterKey, "provider-secrets");
    const sealed = box.seal("session-123");
    const length = Buffer.from(sealed.slice(4), "base64url").length;
    for (const index of [0, 12, length - 1]) {
      expect(() => box.open(flipByte(sealed, index))).toThrow(/failed authentication/);
    }
  });

  test("another master key or another purpose cannot open the secret", () => {
    const sealed = createSecretBox(masterKey, "provider-secrets").seal("s");
    expect(() => createSecretBox(otherKey, "provider-secrets").open(sealed)).toThrow(
      SecretBoxError,
    );
    expect(() => createSecretBox(masterKey, "other-purpose").open(sealed)).toThrow(SecretBoxError);
  });

  test("an unknown version prefix or a truncated value is refused", () => {
    const box = createSecretBox(masterKey, "provider-secrets");
    const sealed = box.seal("s");
    expect(() => box.open(`sb9.${sealed.slice(4)}`)).toThrow(/unknown format/);
    expect(() => box.open("plain text")).toThrow(/unknown format/);
    expect(() => box.open("sb1.AAAA")).toThrow(/truncated/);
  });

  test("a short master key is refused", () => {
    expect(() => createSecretBox(new Uint8Array(16), "p")).toThrow(/32 bytes/);
  });
});
