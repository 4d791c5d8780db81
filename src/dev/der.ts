// The few DER (ASN.1) encodings an X.509 certificate needs (ITU-T X.690), so `svc dev` can issue
// its local CA and receiver certificate in-process, without openssl on the developer's machine.

function lengthBytes(length: number): number[] {
  if (length < 0x80) return [length];
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return [0x80 | bytes.length, ...bytes];
}

export function tlv(tag: number, content: Uint8Array): Uint8Array {
  return Uint8Array.from([tag, ...lengthBytes(content.length), ...content]);
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

export const sequence = (...parts: Uint8Array[]) => tlv(0x30, concat(parts));
export const set = (...parts: Uint8Array[]) => tlv(0x31, concat(parts));
/** A context-specific constructed tag ([n] EXPLICIT). */
export const explicit = (n: number, ...parts: Uint8Array[]) => tlv(0xa0 + n, concat(parts));
/** A context-specific primitive tag ([n] IMPLICIT over a primitive value). */
export const implicit = (n: number, content: Uint8Array) => tlv(0x80 + n, content);
export const octetString = (content: Uint8Array) => tlv(0x04, content);
export const utf8String = (text: string) => tlv(0x0c, new TextEncoder().encode(text));
export const booleanTrue = () => tlv(0x01, Uint8Array.of(0xff));

/** A BIT STRING whose last byte leaves `unusedBits` bits unused. */
export const bitString = (content: Uint8Array, unusedBits = 0) =>
  tlv(0x03, concat([Uint8Array.of(unusedBits), content]));

/** A non-negative INTEGER from big-endian bytes (a leading zero keeps it positive). */
export function unsignedInteger(bytes: Uint8Array): Uint8Array {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const trimmed = bytes.subarray(start);
  return tlv(0x02, (trimmed[0] ?? 0) & 0x80 ? concat([Uint8Array.of(0), trimmed]) : trimmed);
}

export function objectIdentifier(dotted: string): Uint8Array {
  const [first = 0, second = 0, ...rest] = dotted.split(".").map(Number);
  const bytes = [first * 40 + second];
  for (const arc of rest) {
    const chunk = [arc & 0x7f];
    for (let value = Math.floor(arc / 128); value > 0; value = Math.floor(value / 128))
      chunk.unshift((value & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return tlv(0x06, Uint8Array.from(bytes));
}

/** UTCTime up to 2049, GeneralizedTime from 2050 (RFC 5280 4.1.2.5). */
export function time(date: Date): Uint8Array {
  const iso = date.toISOString();
  const digits = `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
  const encoder = new TextEncoder();
  return date.getUTCFullYear() < 2050
    ? tlv(0x17, encoder.encode(digits.slice(2)))
    : tlv(0x18, encoder.encode(digits));
}
