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
  // Not zero-filled first (a 36 KB page's memset was ~2.5 % of an uncached read's CPU,
  // BENCHMARKS.md 2026-12-08), and never a slice of Buffer's shared pool: every byte is written
  // below, which the check at the end holds to, so no earlier memory can leave in a body.
  const joined = Buffer.allocUnsafeSlow(size);
  joined.set(head, 0);
  let offset = head.byteLength;
  for (let i = 0; i < parts.length; i++) {
    if (i > 0) joined[offset++] = comma;
    const part = parts[i] as Uint8Array;
    joined.set(part, offset);
    offset += part.byteLength;
  }
  joined.set(tail, offset);
  offset += tail.byteLength;
  if (offset !== size) throw new Error(`joinedBytes wrote ${offset} of ${size} bytes`);
  return joined;
}
