// JSON bodies assembled from bytes the database already holds (a transactions page's rows):
// one buffer, one copy of each part, no string per part and no text to encode again.

const comma = 0x2c;

/** `head`, then `parts` with a comma between two of them, then `tail`, in one new buffer. */
export function joinedBytes(
  head: Uint8Array,
  parts: readonly Uint8Array[],
  tail: Uint8Array,
): Uint8Array<ArrayBuffer> {
  let size = head.byteLength + tail.byteLength + Math.max(0, parts.length - 1);
  for (const part of parts) size += part.byteLength;
  const joined = new Uint8Array(size);
  joined.set(head, 0);
  let offset = head.byteLength;
  for (let i = 0; i < parts.length; i++) {
    if (i > 0) joined[offset++] = comma;
    const part = parts[i] as Uint8Array;
    joined.set(part, offset);
    offset += part.byteLength;
  }
  joined.set(tail, offset);
  return joined;
}
