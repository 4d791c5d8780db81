// core/joined-bytes.ts: a JSON body assembled from parts the database gave as bytes.
import { describe, expect, test } from "bun:test";
import { joinedBytes } from "../../src/core/joined-bytes.ts";

const utf8 = new TextEncoder();
const text = (bytes: Uint8Array) => new TextDecoder("utf-8", { fatal: true }).decode(bytes);

describe("joined bytes", () => {
  test("are the head, the parts with one comma between two of them, and the tail", () => {
    const parts = ['{"a":1}', '{"b":"Café Zürich €"}', '{"c":"😀"}'].map((p) => utf8.encode(p));
    const joined = joinedBytes(utf8.encode('{"data":['), parts, utf8.encode("]}"));
    expect(text(joined)).toBe('{"data":[{"a":1},{"b":"Café Zürich €"},{"c":"😀"}]}');
    expect(joined.byteLength).toBe(utf8.encode(text(joined)).byteLength);
  });

  test("with one part have no comma, and with none are the head and the tail alone", () => {
    const head = utf8.encode("[");
    const tail = utf8.encode("]");
    expect(text(joinedBytes(head, [utf8.encode("1")], tail))).toBe("[1]");
    expect(text(joinedBytes(head, [], tail))).toBe("[]");
  });

  test("are a new buffer: changing a part afterwards changes nothing in it", () => {
    const part = utf8.encode("12");
    const joined = joinedBytes(utf8.encode("["), [part], utf8.encode("]"));
    part[0] = 0x39;
    expect(text(joined)).toBe("[12]");
  });

  test("own their whole buffer (no slice of a shared pool) and hold only the bytes joined, however small or large", () => {
    for (const size of [0, 1, 100, 4_000, 40_000]) {
      const part = new Uint8Array(size).fill(0x61);
      const joined = joinedBytes(utf8.encode("["), [part, part], utf8.encode("]"));
      expect(joined.byteOffset).toBe(0);
      expect(joined.buffer.byteLength).toBe(2 * size + 3);
      expect(text(joined)).toBe(`[${"a".repeat(size)},${"a".repeat(size)}]`);
    }
  });
});
