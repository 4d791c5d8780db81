// A Server-Sent Events parser (WHATWG HTML "Parsing an event stream"), enough for Svc's stream:
// fields id, event, data (several data lines joined with "\n"), retry; comment lines (":")
// ignored; an event is dispatched at a blank line; CRLF, CR and LF all end a line. A block with an
// `id:` but no data dispatches no event but still moves the last event id (the standard's
// "dispatch the event", step 1): it is returned as a position, so a client can resume from it.

export interface SseMessage {
  id: string | undefined;
  event: string;
  data: string;
  /** An `id:` without data: where the stream stands, not an event. */
  positionOnly?: true;
}

export interface SseParser {
  /** Feeds decoded text; returns the messages completed by it. */
  push(text: string): SseMessage[];
}

export function createSseParser(onComment?: (comment: string) => void): SseParser {
  let buffer = "";
  let data: string[] = [];
  let event = "";
  let id: string | undefined;
  let hasData = false;
  const line = (text: string, out: SseMessage[]) => {
    if (text === "") {
      if (hasData) out.push({ id, event: event || "message", data: data.join("\n") });
      else if (id !== undefined) out.push({ id, event: "", data: "", positionOnly: true });
      data = [];
      event = "";
      id = undefined;
      hasData = false;
      return;
    }
    if (text.startsWith(":")) {
      onComment?.(text.slice(1).trim());
      return;
    }
    const colon = text.indexOf(":");
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? "" : text.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") {
      data.push(value);
      hasData = true;
    } else if (field === "event") event = value;
    else if (field === "id" && !value.includes("\0")) id = value;
  };
  return {
    push(text) {
      buffer += text;
      const out: SseMessage[] = [];
      for (;;) {
        const match = /\r\n|\r|\n/.exec(buffer);
        if (!match) break;
        // A CR at the very end may be the first half of CRLF: wait for more.
        if (match[0] === "\r" && match.index === buffer.length - 1) break;
        line(buffer.slice(0, match.index), out);
        buffer = buffer.slice(match.index + match[0].length);
      }
      return out;
    },
  };
}

/** Reads a response body as SSE messages, and comment lines when `onComment` is given. */
export async function* readSse(
  body: ReadableStream<Uint8Array>,
  onComment?: (comment: string) => void,
): AsyncGenerator<SseMessage> {
  const parser = createSseParser(onComment);
  const decoder = new TextDecoder();
  const reader = body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      yield* parser.push(decoder.decode(value, { stream: true }));
    }
  } finally {
    reader.releaseLock();
  }
}
