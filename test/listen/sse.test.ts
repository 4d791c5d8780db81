import { describe, expect, test } from "bun:test";
import { createSseParser } from "../../src/listen/sse.ts";

describe("SSE parser", () => {
  test("joins several data lines with a newline and keeps id and event", () => {
    const parser = createSseParser();
    const out = parser.push('id: evt_1\nevent: account.synced\ndata: {"a":1,\ndata: "b":2}\n\n');
    expect(out).toEqual([{ id: "evt_1", event: "account.synced", data: '{"a":1,\n"b":2}' }]);
  });

  test("comment lines (heartbeats) reach onComment and dispatch nothing", () => {
    const comments: string[] = [];
    const parser = createSseParser((c) => comments.push(c));
    expect(parser.push(": heartbeat\n\n")).toEqual([]);
    expect(comments).toEqual(["heartbeat"]);
  });

  test("a message split at any chunk boundary, CRLF included, parses the same", () => {
    const text = "id: evt_2\r\nevent: x.y\r\ndata: hello\r\n\r\n";
    for (let cut = 0; cut <= text.length; cut++) {
      const parser = createSseParser();
      const out = [...parser.push(text.slice(0, cut)), ...parser.push(text.slice(cut))];
      expect(out).toEqual([{ id: "evt_2", event: "x.y", data: "hello" }]);
    }
  });

  test("an event with no event field is a message; fields reset between events", () => {
    const parser = createSseParser();
    const out = parser.push("id: a\nevent: t\ndata: 1\n\ndata: 2\n\n");
    expect(out).toEqual([
      { id: "a", event: "t", data: "1" },
      { id: undefined, event: "message", data: "2" },
    ]);
  });

  test("a blank line without data dispatches no event; an id without data is a position", () => {
    const parser = createSseParser();
    expect(parser.push("event: x\n\n")).toEqual([]);
    expect(parser.push(": connected\nid: a\n\n")).toEqual([
      { id: "a", event: "", data: "", positionOnly: true },
    ]);
  });
});
