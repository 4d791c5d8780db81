import { afterAll, describe, expect, test } from "bun:test";
import { ListenRefused, runListen } from "../../src/listen/listen.ts";

const forwarded: string[] = [];
const receiver = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    forwarded.push(await request.text());
    return new Response(null, { status: 200 });
  },
});
afterAll(() => receiver.stop(true));

function sseResponse(text: string): Response {
  return new Response(text, { status: 200, headers: { "Content-Type": "text/event-stream" } });
}

describe("runListen reconnects and resumes", () => {
  test("after a lost connection it resumes with Last-Event-ID, the backoff starts over once connected, and a refused key ends it", async () => {
    const requests: { url: string; lastEventId: string | null; auth: string | null }[] = [];
    const answers: (() => Response)[] = [
      () => {
        throw new TypeError("connection refused");
      },
      () =>
        sseResponse(
          ': heartbeat\n\nid: evt_1\nevent: account.transactions.available\ndata: {"id":"evt_1"}\n\n',
        ),
      () =>
        sseResponse('id: evt_2\nevent: account.transactions.available\ndata: {"id":"evt_2"}\n\n'),
      () =>
        Response.json(
          { error: { code: "invalid_api_key", message: "Key revoked." } },
          { status: 401 },
        ),
    ];
    const delays: number[] = [];
    const lines: string[] = [];
    const fakeFetch = (async (input: URL | string, init?: RequestInit) => {
      const headers = new Headers(init?.headers);
      requests.push({
        url: String(input),
        lastEventId: headers.get("Last-Event-ID"),
        auth: headers.get("Authorization"),
      });
      const answer = answers.shift();
      if (!answer) throw new Error("unexpected request");
      return answer();
    }) as typeof fetch;
    const run = runListen(
      {
        apiUrl: new URL("http://svc.test/base/"),
        apiKey: "svk_key",
        forwardTo: new URL(`http://127.0.0.1:${receiver.port}/hook`),
        types: ["account.transactions.available"],
        secret: `whsec_${"s".repeat(43)}`,
      },
      {
        now: () => new Date("2026-01-01T00:00:00Z"),
        onForwarded: (event) => lines.push(`${event.id} ${event.type} ${event.result.statusCode}`),
        notice: () => {},
        signal: new AbortController().signal,
        fetch: fakeFetch,
        delayMs: (failures) => {
          delays.push(failures);
          return 0;
        },
      },
    );
    await expect(run).rejects.toBeInstanceOf(ListenRefused);
    expect(requests.map((r) => r.lastEventId)).toEqual([null, null, "evt_1", "evt_2"]);
    expect(requests[0]?.url).toBe(
      "http://svc.test/base/v1/events/stream?type=account.transactions.available",
    );
    expect(requests.every((r) => r.auth === "Bearer svk_key")).toBe(true);
    // Failure counts: 1 (refused), then 1 again after each connection that was open.
    expect(delays).toEqual([1, 1, 1]);
    expect(lines).toEqual([
      "evt_1 account.transactions.available 200",
      "evt_2 account.transactions.available 200",
    ]);
    expect(forwarded).toEqual(['{"id":"evt_1"}', '{"id":"evt_2"}']);
  });

  test("an aborted signal ends it without error", async () => {
    const stop = new AbortController();
    const fakeFetch = (async () => {
      stop.abort();
      throw new TypeError("aborted");
    }) as unknown as typeof fetch;
    await runListen(
      {
        apiUrl: new URL("http://svc.test"),
        apiKey: "k",
        forwardTo: new URL(`http://127.0.0.1:${receiver.port}/`),
        types: [],
        secret: "s",
      },
      {
        now: () => new Date(),
        onForwarded: () => {},
        notice: () => {},
        signal: stop.signal,
        fetch: fakeFetch,
      },
    );
    expect(stop.signal.aborted).toBe(true);
  });

  test("before any event, a reconnect resumes from the stream's starting position; an event id is forwarded once however often it is sent; stream.closed ends it with the reason", async () => {
    forwarded.length = 0;
    const start = "0193aa00-0000-7000-8000-000000000000";
    const event = (id: string) =>
      `id: ${id}\nevent: account.balance.updated\ndata: {"id":"${id}"}\n\n`;
    const answers: (() => Response)[] = [
      // Connected, told where it starts, then dropped before any event.
      () => sseResponse(`: connected\nid: ${start}\n\n`),
      () => sseResponse(`: connected\nid: ${start}\n\n${event("e1")}${event("e1")}`),
      () => sseResponse(`: connected\nid: e1\n\n${event("e1")}${event("e2")}`),
      () =>
        sseResponse(
          `: connected\nid: e2\n\nevent: stream.closed\ndata: {"error":{"code":"invalid_api_key","message":"This API key was revoked."}}\n\n`,
        ),
    ];
    const lastEventIds: (string | null)[] = [];
    const lines: string[] = [];
    const run = runListen(
      {
        apiUrl: new URL("http://127.0.0.1:1"),
        apiKey: "svk_key",
        forwardTo: new URL(`http://127.0.0.1:${receiver.port}/hook`),
        types: [],
        secret: `whsec_${"s".repeat(43)}`,
      },
      {
        now: () => new Date("2026-01-01T00:00:00Z"),
        onForwarded: (forwardedEvent) => lines.push(forwardedEvent.id),
        notice: () => {},
        signal: new AbortController().signal,
        fetch: (async (_input: URL | string, init?: RequestInit) => {
          lastEventIds.push(new Headers(init?.headers).get("Last-Event-ID"));
          const answer = answers.shift();
          if (!answer) throw new Error("unexpected request");
          return answer();
        }) as typeof fetch,
        delayMs: () => 0,
      },
    );
    const refusal = await run.then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(ListenRefused);
    expect((refusal as Error).message).toContain("This API key was revoked. (invalid_api_key)");
    expect(lastEventIds).toEqual([null, start, "e1", "e2"]);
    expect(lines).toEqual(["e1", "e2"]);
    expect(forwarded).toEqual(['{"id":"e1"}', '{"id":"e2"}']);
  });
});
