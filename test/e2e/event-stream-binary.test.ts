// /v1/events/stream and `svc listen` in the compiled binary with the real timings, on this run's
// engine (SVC_TEST_ENGINE):
// - an idle stream stays open well past Bun's 10 s idle timeout (heartbeats every 5 s), and so
//   does `svc listen` (no reconnect);
// - revoking the key from the CLI (another process) ends the open stream within seconds with a
//   last `stream.closed` naming invalid_api_key, and ends `svc listen` with exit 1 saying why;
//   disabling the account ends another stream with user_inactive.
import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { readSse, type SseMessage } from "../../src/listen/sse.ts";
import { compiledBinary, runBinaryJson, spawnCaptured, startBinary } from "../support/binary.ts";
import { makeTempDir } from "../support/temp.ts";
import { waitUntil } from "../support/wait.ts";

/** Event ids `svc listen` forwarded. */
const forwarded: string[] = [];
const receiver = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: async (request) => {
    forwarded.push(((await request.json()) as { id: string }).id);
    return new Response(null, { status: 202 });
  },
});
afterAll(() => receiver.stop(true));

const svc = (binary: string, args: string[], cwd: string) => runBinaryJson(binary, args, cwd);
const until = (what: string, check: () => boolean, timeoutMs = 20_000) =>
  waitUntil(check, what, timeoutMs);

/** An open stream, read in the background: its events, comments, and whether it has ended. */
async function openStream(baseUrl: string, key: string) {
  const response = await fetch(`${baseUrl}/v1/events/stream`, {
    headers: { Authorization: `Bearer ${key}` },
  });
  expect(response.status).toBe(200);
  const state = {
    events: [] as SseMessage[],
    comments: [] as string[],
    endedAt: undefined as number | undefined,
    error: undefined as unknown,
  };
  void (async () => {
    try {
      for await (const message of readSse(response.body as ReadableStream<Uint8Array>, (c) =>
        state.comments.push(c),
      )) {
        if (!message.positionOnly) state.events.push(message);
      }
    } catch (error) {
      state.error = error;
    }
    state.endedAt = Date.now();
  })();
  return state;
}

test("an idle stream and svc listen stay open past 30 s; revoking the key ends both promptly, saying why; disabling the account ends a stream too", async () => {
  const binary = await compiledBinary();
  const cwd = makeTempDir("svc-stream");
  const server = await startBinary(binary, { cwd });
  const home = makeTempDir("svc-stream-home");
  let listen: ReturnType<typeof spawnCaptured> | undefined;
  try {
    const account = await svc(binary, ["accounts", "create", "--email", "idle@example.com"], cwd);
    const created = await svc(binary, ["keys", "create", "--account", account.id], cwd);
    const keyFile = join(home, "key.txt");
    await Bun.write(keyFile, `${created.key}\n`);
    const stream = await openStream(server.baseUrl, created.key);
    const flags = {
      "--api-url": server.baseUrl,
      "--api-key-file": keyFile,
      "--forward-to": `http://127.0.0.1:${receiver.port}/hook`,
    };
    listen = spawnCaptured([binary, "listen", ...Object.entries(flags).flat()], {
      cwd: home,
      env: { XDG_CONFIG_HOME: join(home, "config") },
    });
    const err = listen.stderr;
    await until("svc listen to connect", () => err().includes("connected to"));

    // Idle for 32 s with the real timings: nothing may cut the stream or listen's connection.
    await Bun.sleep(32_000);
    expect(stream.endedAt).toBeUndefined();
    expect(stream.comments.filter((c) => c === "heartbeat").length).toBeGreaterThanOrEqual(5);
    expect(err()).not.toContain("reconnecting");

    // Still delivering: an event reaches the stream and, once, the listen receiver.
    const connection = await svc(binary, ["sandbox", "connect", "--account", account.id], cwd);
    await svc(binary, ["sandbox", "set-status", "--connection", connection.id, "error"], cwd);
    await until("an event on the stream", () => stream.events.length > 0);
    await until("the event at the receiver", () => forwarded.length > 0);

    const revokedAt = Date.now();
    await svc(binary, ["keys", "revoke", created.id], cwd);
    await until("the stream to end", () => stream.endedAt !== undefined, 10_000);
    expect((stream.endedAt as number) - revokedAt).toBeLessThan(4_000);
    const last = stream.events.at(-1);
    expect(last?.event).toBe("stream.closed");
    expect(JSON.parse(last?.data ?? "{}").error.code).toBe("invalid_api_key");
    expect(await listen.process.exited).toBe(1);
    await listen.drained;
    expect(err()).toContain("the server ended the event stream");
    expect(err()).toContain("invalid_api_key");

    const second = await svc(binary, ["keys", "create", "--account", account.id], cwd);
    const other = await openStream(server.baseUrl, second.key);
    const disabledAt = Date.now();
    await svc(binary, ["accounts", "update", account.id, "--disabled", "true"], cwd);
    await until("the second stream to end", () => other.endedAt !== undefined, 10_000);
    expect((other.endedAt as number) - disabledAt).toBeLessThan(4_000);
    expect(JSON.parse(other.events.at(-1)?.data ?? "{}").error.code).toBe("user_inactive");
  } finally {
    listen?.process.kill("SIGKILL");
    await server.stop();
  }
}, 120_000);
