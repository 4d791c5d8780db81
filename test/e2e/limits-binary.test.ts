// Limits of the compiled binary's listener, on this run's engine (SVC_TEST_ENGINE):
// - request bodies are refused without being read: four sign-ins of 120 MiB each at once, declared
//   or chunked, leave the server's resident memory where it was and are answered at once
//   (src/http/body-limit.ts; Bun's maxRequestBodySize above the largest documented size);
// - the portal page as the binary bundles it carries the anti-framing and nosniff headers
//   (src/http/security-headers.ts, src/server/portal-page.ts).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { compiledBinary, type StartedBinary, startBinary } from "../support/binary.ts";
import { makeTempDir } from "../support/temp.ts";

let server: StartedBinary;
beforeAll(async () => {
  server = await startBinary(await compiledBinary(), { cwd: makeTempDir("svc-limits") });
}, 120_000);
afterAll(() => server?.stop());

/** The server's resident memory in bytes (Linux /proc). */
function residentBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]) * 1024;
}

const mib = 1024 * 1024;

/** 120 MiB produced lazily in 1 MiB chunks (Transfer-Encoding: chunked, no Content-Length). */
function chunkedBody(totalBytes: number): ReadableStream<Uint8Array> {
  const chunk = new Uint8Array(mib).fill(0x61);
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= totalBytes) return controller.close();
      controller.enqueue(chunk);
      sent += chunk.length;
    },
  });
}

async function signIn(body: BodyInit): Promise<{ status: number | string; ms: number }> {
  const started = performance.now();
  try {
    const response = await fetch(`${server.baseUrl}/portal/api/session`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: server.baseUrl },
      body,
    });
    await response.arrayBuffer();
    return { status: response.status, ms: performance.now() - started };
  } catch (error) {
    // The server may close the connection while the client is still sending.
    return { status: (error as Error).name, ms: performance.now() - started };
  }
}

describe("the compiled binary bounds request bodies", () => {
  test("four parallel 120 MiB sign-ins, declared and chunked, are refused at once without the server's memory growing", async () => {
    const pid = server.process.pid;
    // Warm up (first request paths, allocator), then measure.
    await signIn(JSON.stringify({ email: "a@example.com", password: "warm-up password" }));
    const before = residentBytes(pid);
    const declared = new Uint8Array(120 * mib).fill(0x61);
    const results = await Promise.all([
      signIn(declared),
      signIn(declared),
      signIn(chunkedBody(120 * mib)),
      signIn(chunkedBody(120 * mib)),
    ]);
    const after = residentBytes(pid);
    for (const result of results) {
      expect([413, "TypeError", "Error"]).toContain(result.status);
      expect(result.ms).toBeLessThan(10_000);
    }
    expect(results.some((result) => result.status === 413)).toBe(true);
    // Reading them would have cost at least 480 MiB; allow the allocator some noise.
    expect(after - before).toBeLessThan(48 * mib);
    // Still serving.
    expect((await fetch(`${server.baseUrl}/readyz`)).status).toBe(200);
  }, 120_000);

  test("a 1 MiB sign-in is answered 413 in the error envelope", async () => {
    const response = await fetch(`${server.baseUrl}/portal/api/session`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: server.baseUrl },
      body: JSON.stringify({ email: "a@example.com", password: "x".repeat(mib) }),
    });
    expect(response.status).toBe(413);
    expect((await response.json()).error.code).toBe("payload_too_large");
  });
});

test("the compiled binary's portal page and its assets carry frame-ancestors 'none', DENY, nosniff, no-referrer", async () => {
  const page = await fetch(`${server.baseUrl}/`);
  expect(page.status).toBe(200);
  const html = await page.text();
  const paths = [
    "/",
    ...[...html.matchAll(/(?:src|href)="(\/[^"]+)"/g)].map((m) => m[1] as string),
  ];
  expect(paths.length).toBeGreaterThanOrEqual(3);
  for (const path of paths) {
    const response = await fetch(`${server.baseUrl}${path}`);
    expect({ path, status: response.status }).toEqual({ path, status: 200 });
    expect(response.headers.get("Content-Security-Policy")).toBe("frame-ancestors 'none'");
    expect(response.headers.get("X-Frame-Options")).toBe("DENY");
    expect(response.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(response.headers.get("Referrer-Policy")).toBe("no-referrer");
  }
});
