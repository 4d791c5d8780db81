// `svc listen` in the compiled binary: a second process follows a real `svc serve`,
// forwards each event once to a loopback receiver signed with the printed listen secret, survives
// the server going away (events raised by the CLI meanwhile arrive after the restart, none missed,
// none twice), and stops with exit 0 on SIGINT.
import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { compiledBinary, runBinary, spawnCaptured, startBinary } from "../support/binary.ts";
import { makeTempDir } from "../support/temp.ts";
import { verifyWebhook } from "../support/webhook-verifier.ts";

const received: { id: string; type: string; verified: boolean }[] = [];
let secret = "";
const receiver = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    const rawBody = await request.text();
    const event = JSON.parse(rawBody) as { id: string; type: string };
    const verified = verifyWebhook({
      secret,
      headers: Object.fromEntries(request.headers),
      rawBody,
      nowSeconds: Math.floor(Date.now() / 1000),
    });
    received.push({ id: event.id, type: event.type, verified: verified.ok });
    return new Response(null, { status: 204 });
  },
});
afterAll(() => receiver.stop(true));

async function svc(binary: string, args: string[], cwd: string) {
  const run = await runBinary(binary, [...args, "--json"], cwd);
  if (run.code !== 0) throw new Error(`svc ${args.join(" ")} failed: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

async function eventIds(baseUrl: string, key: string): Promise<string[]> {
  const response = await fetch(`${baseUrl}/v1/events?limit=100`, {
    headers: { Authorization: `Bearer ${key}` },
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { data: { id: string }[] };
  return body.data.map((event) => event.id);
}

test("svc listen forwards every event once, signed with the printed secret, across a server restart, and exits 0 on SIGINT", async () => {
  const binary = await compiledBinary();
  const cwd = makeTempDir("svc-listen");
  let server = await startBinary(binary, { cwd });
  const port = Number(new URL(server.baseUrl).port);
  const account = await svc(binary, ["accounts", "create", "--email", "listen@example.com"], cwd);
  const created = await svc(binary, ["keys", "create", "--account", account.id], cwd);
  const home = makeTempDir("svc-listen-home");
  const keyFile = join(home, "key.txt");
  await Bun.write(keyFile, `${created.key}\n`);
  const before = new Set(await eventIds(server.baseUrl, created.key));

  const captured = spawnCaptured(
    [
      binary,
      "listen",
      "--api-url",
      server.baseUrl,
      "--api-key-file",
      keyFile,
      "--forward-to",
      `http://127.0.0.1:${receiver.port}/webhooks`,
    ],
    { cwd: home, env: { SVC_LISTEN_SECRET_FILE: join(home, "secret", "listen-secret") } },
  );
  const listen = captured.process;
  const out = captured.stdout;
  const err = captured.stderr;
  try {
    await until("the listen secret and the connection", () => err().includes("connected to"));
    secret = /Signing secret: (whsec_[A-Za-z0-9_-]{43})/.exec(err())?.[1] ?? "";
    expect(secret).not.toBe("");
    expect(err()).toContain(join(home, "secret", "listen-secret"));

    const connection = await svc(binary, ["sandbox", "connect", "--account", account.id], cwd);
    await svc(binary, ["sync", "--connection", connection.id], cwd);
    const firstIds = (await eventIds(server.baseUrl, created.key)).filter((id) => !before.has(id));
    expect(firstIds.length).toBeGreaterThan(0);
    await until("the first events at the receiver", () => received.length >= firstIds.length);

    // The server goes away; the CLI raises more events straight in the data dir meanwhile.
    expect(await server.stop()).toBe(0);
    await svc(binary, ["sandbox", "set-status", "--connection", connection.id, "error"], cwd);
    await svc(binary, ["sandbox", "set-status", "--connection", connection.id, "linked"], cwd);
    await until("listen to notice the lost server", () => err().includes("reconnecting"));
    server = await startBinary(binary, { cwd, port });
    const missedIds = (await eventIds(server.baseUrl, created.key)).filter((id) => !before.has(id));
    expect(missedIds.length).toBe(firstIds.length + 2);
    await until("the missed events at the receiver", () => received.length >= missedIds.length);
    // One more event after the restart: the stream is in order, so once it has arrived every
    // event before it has, and a duplicate of any of them would have arrived too.
    await svc(binary, ["sandbox", "set-status", "--connection", connection.id, "error"], cwd);
    const allIds = (await eventIds(server.baseUrl, created.key)).filter((id) => !before.has(id));
    expect(allIds.length).toBe(firstIds.length + 3);
    const lastId = allIds.find((id) => !missedIds.includes(id));
    await until("the last event at the receiver", () =>
      received.some((event) => event.id === lastId),
    );

    expect(received.map((event) => event.id).sort()).toEqual([...allIds].sort());
    expect(received.every((event) => event.verified)).toBe(true);
    // listen prints a forward's line once the receiver has answered, after the receiver saw it.
    await until(
      "listen to print the last forward",
      () => out().trim().split("\n").length >= allIds.length,
    );
    const lines = out().trim().split("\n");
    expect(lines).toHaveLength(allIds.length);
    for (const event of received) {
      expect(lines.some((line) => line.includes(event.id) && line.includes(event.type))).toBe(true);
    }
    expect(lines.every((line) => / -> 204 {2}\d+ ms$/.test(line))).toBe(true);
    expect(err()).toContain("resuming after");

    listen.kill("SIGINT");
    expect(await listen.exited).toBe(0);
    await captured.drained;
  } finally {
    listen.kill("SIGKILL");
    await server.stop().catch(() => 0);
  }
}, 120_000);

test("svc listen with a key the server refuses exits 1", async () => {
  const binary = await compiledBinary();
  const cwd = makeTempDir("svc-listen-refused");
  const server = await startBinary(binary, { cwd });
  try {
    const keyFile = join(cwd, "key.txt");
    await Bun.write(keyFile, `svk_abcdefgh_${"a".repeat(43)}\n`);
    const run = await runBinary(
      binary,
      [
        "listen",
        "--api-url",
        server.baseUrl,
        "--api-key-file",
        keyFile,
        "--forward-to",
        `http://127.0.0.1:${receiver.port}/`,
      ],
      makeTempDir("svc-listen-refused-home"),
      { SVC_LISTEN_SECRET_FILE: join(cwd, "listen-secret") },
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("refused");
  } finally {
    expect(await server.stop()).toBe(0);
  }
}, 60_000);

test("svc listen stops with exit 0 on SIGTERM and prints the same secret on its next start", async () => {
  const binary = await compiledBinary();
  const cwd = makeTempDir("svc-listen-term");
  const server = await startBinary(binary, { cwd });
  try {
    const account = await svc(binary, ["accounts", "create", "--email", "term@example.com"], cwd);
    const created = await svc(binary, ["keys", "create", "--account", account.id], cwd);
    const home = makeTempDir("svc-listen-term-home");
    const keyFile = join(home, "key.txt");
    await Bun.write(keyFile, `${created.key}\n`);
    const secrets: string[] = [];
    for (let run = 0; run < 2; run++) {
      // No SVC_LISTEN_SECRET_FILE: the secret goes under XDG_CONFIG_HOME.
      const captured = spawnCaptured(
        [
          binary,
          "listen",
          "--api-url",
          server.baseUrl,
          "--api-key-file",
          keyFile,
          "--forward-to",
          `http://127.0.0.1:${receiver.port}/`,
        ],
        { cwd: home, env: { XDG_CONFIG_HOME: join(home, "config") } },
      );
      const listen = captured.process;
      const err = captured.stderr;
      try {
        await until("the connection", () => err().includes("connected to"));
        secrets.push(/Signing secret: (whsec_[A-Za-z0-9_-]{43})/.exec(err())?.[1] ?? "");
        const port = new URL(server.baseUrl).port;
        expect(err()).toContain(
          join(home, "config", "svc", "listen-secrets", `http-127.0.0.1-${port}`),
        );
        listen.kill("SIGTERM");
        expect(await listen.exited).toBe(0);
        await captured.drained;
      } finally {
        listen.kill("SIGKILL");
      }
    }
    expect(secrets[0]).toMatch(/^whsec_/);
    expect(secrets[1]).toBe(secrets[0] as string);
  } finally {
    expect(await server.stop()).toBe(0);
  }
}, 60_000);

test("svc listen that loses the server before any event resumes from its first connection: an event written while it was away is forwarded", async () => {
  const binary = await compiledBinary();
  const cwd = makeTempDir("svc-listen-early");
  let server = await startBinary(binary, { cwd });
  const port = Number(new URL(server.baseUrl).port);
  const home = makeTempDir("svc-listen-early-home");
  let listen: ReturnType<typeof spawnCaptured> | undefined;
  try {
    const account = await svc(binary, ["accounts", "create", "--email", "early@example.com"], cwd);
    const created = await svc(binary, ["keys", "create", "--account", account.id], cwd);
    const connection = await svc(binary, ["sandbox", "connect", "--account", account.id], cwd);
    const keyFile = join(home, "key.txt");
    await Bun.write(keyFile, `${created.key}\n`);
    const before = new Set(await eventIds(server.baseUrl, created.key));
    const flags = {
      "--api-url": server.baseUrl,
      "--api-key-file": keyFile,
      "--forward-to": `http://127.0.0.1:${receiver.port}/early`,
    };
    listen = spawnCaptured([binary, "listen", ...Object.entries(flags).flat()], {
      cwd: home,
      env: { SVC_LISTEN_SECRET_FILE: join(home, "listen-secret") },
    });
    const err = listen.stderr;
    await until("the connection", () => err().includes("connected to"));
    expect(await server.stop()).toBe(0);
    await svc(binary, ["sandbox", "set-status", "--connection", connection.id, "error"], cwd);
    await until("listen to notice the lost server", () => err().includes("reconnecting"));
    server = await startBinary(binary, { cwd, port });
    const [written] = (await eventIds(server.baseUrl, created.key)).filter((id) => !before.has(id));
    expect(written).toBeDefined();
    await until("the event written while away at the receiver", () =>
      received.some((event) => event.id === written),
    );
    expect(err()).toContain("resuming after");
  } finally {
    listen?.process.kill("SIGKILL");
    await server.stop().catch(() => 0);
  }
}, 90_000);
