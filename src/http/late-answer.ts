// Bodies of answers given after the request's own turn of the event loop: after a round trip to
// PostgreSQL, or after the turn's transactions pages were read together on SQLite
// (db/turn-batch.ts). Bun 1.4.5 sends such an answer in one write only while it fits its 16 KB cork
// buffer; a larger one leaves piece by piece (28-31 writes for a 36 KB page of transactions, about
// six times the CPU of one write). The same bytes as a direct stream leave in one write, framed
// `Transfer-Encoding: chunked` (Bun drops a Content-Length given with a stream). A body that fits
// the cork buffer keeps its Content-Length, and so does a remembered answer given within the
// request's own turn.
// BENCHMARKS.md, "Late answers on PostgreSQL" (2026-11-28).

/** The largest late body that still leaves in one write with its headers (measured: 15,000 yes, 16,200 no). */
export const lateBodyCorkedBytes = 15_000;

/** What a late answer is sent with: the bytes themselves while they fit, else a direct stream of them. */
export function lateAnswerBody(
  bytes: Uint8Array<ArrayBuffer>,
): Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array> {
  if (bytes.byteLength <= lateBodyCorkedBytes) return bytes;
  const source: Bun.DirectUnderlyingSource<Uint8Array> = {
    type: "direct",
    pull(controller) {
      controller.write(bytes);
      controller.close();
    },
  };
  // Bun's own constructor overload for a direct source (bun-types); the DOM library's hides it.
  const DirectStream = ReadableStream as unknown as new (
    source: Bun.DirectUnderlyingSource<Uint8Array>,
  ) => ReadableStream<Uint8Array>;
  return new DirectStream(source);
}
