// The compiled binary, built once per test process into a temporary directory.
import { join } from "node:path";
import { engineEnvFor } from "./engine.ts";
import { makeTempDir } from "./temp.ts";

const repoRoot = join(import.meta.dir, "../..");
let built: Promise<string> | undefined;

export function compiledBinary(): Promise<string> {
  built ??= (async () => {
    const outfile = join(makeTempDir("svc-bin"), "svc");
    const build = Bun.spawn([process.execPath, "run", "scripts/build.ts", "--outfile", outfile], {
      cwd: repoRoot,
      stdout: "pipe",
      stderr: "pipe",
    });
    const code = await build.exited;
    if (code !== 0) {
      throw new Error(`building the binary failed:\n${await new Response(build.stderr).text()}`);
    }
    return outfile;
  })();
  return built;
}

/** Runs the binary once (a CLI command) and collects its output. */
export async function runBinary(
  binary: string,
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
) {
  const child = Bun.spawn([binary, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "", ...(await engineEnvFor(cwd)), ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { stdout, stderr, code };
}

/** Runs a CLI command of the binary with --json; its parsed output, or an error with stderr. */
export async function runBinaryJson(binary: string, args: string[], cwd: string) {
  const run = await runBinary(binary, [...args, "--json"], cwd);
  if (run.code !== 0) throw new Error(`svc ${args.join(" ")} failed: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

export interface CapturedProcess {
  process: Bun.Subprocess<"ignore", "pipe", "pipe">;
  /** Everything the process wrote so far. */
  stdout(): string;
  stderr(): string;
  /** Both streams read to their end (after the process exited). */
  drained: Promise<void>;
}

/**
 * Spawns `argv` with a minimal environment (PATH, HOME = cwd, then `env`) and collects its output
 * as it comes, so a test can wait for a line while the process runs.
 */
export function spawnCaptured(
  argv: string[],
  options: { cwd: string; env?: Record<string, string> },
): CapturedProcess {
  const child = Bun.spawn(argv, {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? "", HOME: options.cwd, ...options.env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let out = "";
  let err = "";
  const pump = async (stream: ReadableStream<Uint8Array>, sink: (s: string) => void) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) sink(decoder.decode(chunk, { stream: true }));
  };
  const drained = Promise.all([
    pump(child.stdout, (s) => {
      out += s;
    }),
    pump(child.stderr, (s) => {
      err += s;
    }),
  ]).then(() => undefined);
  return { process: child, stdout: () => out, stderr: () => err, drained };
}

export interface StartedBinary {
  process: Bun.Subprocess<"ignore", "pipe", "pipe">;
  baseUrl: string;
  stdout(): string;
  stderr(): string;
  stop(signal?: NodeJS.Signals): Promise<number>;
}

/** Starts `svc serve` on a free loopback port and waits until /readyz answers (start-up done). */
export async function startBinary(
  binary: string,
  options: { cwd: string; args?: string[]; env?: Record<string, string>; port?: number },
): Promise<StartedBinary> {
  const port = options.port ?? (await freePort());
  const captured = spawnCaptured(
    [binary, "serve", "--port", String(port), ...(options.args ?? [])],
    {
      cwd: options.cwd,
      env: { ...(await engineEnvFor(options.cwd)), ...options.env },
    },
  );
  const child = captured.process;
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`svc serve exited with ${child.exitCode}:\n${captured.stderr()}`);
    try {
      if ((await fetch(`${baseUrl}/readyz`)).ok) break;
    } catch {}
    if (Date.now() > deadline)
      throw new Error(`svc serve did not become healthy:\n${captured.stderr()}`);
    await Bun.sleep(50);
  }
  return {
    process: child,
    baseUrl,
    stdout: captured.stdout,
    stderr: captured.stderr,
    async stop(signal = "SIGTERM") {
      child.kill(signal);
      const code = await child.exited;
      await captured.drained;
      return code;
    },
  };
}

export async function freePort(): Promise<number> {
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = server.port as number;
  await server.stop(true);
  return port;
}
