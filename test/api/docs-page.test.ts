// /v1/docs: Scalar's reference page and bundle served by the server itself, offline,
// under a strict Content-Security-Policy; the bundle under a content-hashed, immutable URL,
// compressed once per process. The rendering itself is checked in a real browser by
// test/e2e/docs-binary.test.ts.
import { afterAll, describe, expect, test } from "bun:test";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import fastifyApiReference from "@scalar/fastify-api-reference";
import { scalarConfiguration } from "../../src/api/reference/docs-page.ts";
import { standaloneFromIntegrationSource } from "../../src/api/reference/scalar-bundle.ts";
import { startApiHarness } from "../support/api.ts";

const api = await startApiHarness();
afterAll(() => api.stop());
const page = await api.get("/v1/docs", null);
const html = await page.text();
const scriptPath = /<script src="([^"]+)"><\/script>/.exec(html)?.[1] as string;

function directives(policy: string): Map<string, string[]> {
  return new Map(
    policy.split(";").map((part) => {
      const [name, ...values] = part.trim().split(/\s+/);
      return [name as string, values];
    }),
  );
}

describe("/v1/docs", () => {
  test("is served without a key: one same-origin script, the configuration inline, nothing from another host", () => {
    expect(page.status).toBe(200);
    expect(page.headers.get("Content-Type")).toContain("text/html");
    expect(scriptPath).toMatch(/^docs\/scalar\.[0-9a-f]{16}\.js$/);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//i);
    expect(html).toContain('href="openapi.json"');
    expect((html.match(/<script\b/g) ?? []).length).toBe(2);
    expect(html).toMatch(
      /<script id="api-reference" type="application\/json" data-configuration="[^"]+"><\/script>/,
    );
  });

  test("the Content-Security-Policy allows scripts only from this origin, no eval, no inline script, nothing external", () => {
    const policy = directives(page.headers.get("Content-Security-Policy") ?? "");
    expect(policy.get("default-src")).toEqual(["'none'"]);
    expect(policy.get("script-src")).toEqual(["'self'"]);
    expect(policy.get("connect-src")).toEqual(["'self'", new URL(api.server.baseUrl).origin]);
    expect(policy.get("frame-ancestors")).toEqual(["'none'"]);
    expect(policy.get("base-uri")).toEqual(["'none'"]);
    expect(policy.get("form-action")).toEqual(["'none'"]);
    for (const values of policy.values()) {
      expect(values).not.toContain("'unsafe-eval'");
      expect(values.filter((v) => v.includes("://") && !v.startsWith(api.server.baseUrl))).toEqual(
        [],
      );
    }
  });

  test("Scalar is configured with no web fonts, no telemetry, no agent or MCP, curl as the default sample", () => {
    const configuration = scalarConfiguration();
    expect(configuration).toMatchObject({
      url: "openapi.json",
      withDefaultFonts: false,
      telemetry: false,
      agent: { disabled: true },
      mcp: { disabled: true },
      showDeveloperTools: "never",
      defaultHttpClient: { targetKey: "shell", clientKey: "curl" },
    });
  });
});

/** What Scalar's Fastify integration itself serves at `<prefix>/js/scalar.js`. */
function servedByIntegration(): string {
  const routes: { url: string; handler(request: unknown, reply: unknown): unknown }[] = [];
  const fastify = {
    route: (route: (typeof routes)[number]) => routes.push(route),
    hasPlugin: () => false,
    initialConfig: {},
    log: { warn: () => {} },
  };
  (fastifyApiReference as unknown as (a: unknown, b: unknown, c: () => void) => void)(
    fastify,
    { configuration: { url: "/openapi.json" } },
    () => {},
  );
  let body = "";
  const reply = {
    header: () => reply,
    send: (value: string) => {
      body = value;
      return reply;
    },
  };
  routes.find((route) => route.url.endsWith("/js/scalar.js"))?.handler({}, reply);
  return body;
}

describe("the bundle", () => {
  test("is exactly the file Scalar's Fastify integration serves, read out of its module", async () => {
    const require = createRequire(import.meta.url);
    const module = join(dirname(require.resolve("@scalar/fastify-api-reference")), "index.js");
    const read = standaloneFromIntegrationSource(await Bun.file(module).text());
    const served = servedByIntegration();
    expect(served.length).toBeGreaterThan(1_000_000);
    expect(read).toBe(served);
    expect(() => standaloneFromIntegrationSource("export default 1;")).toThrow("no longer embeds");
  });

  const url = `${api.server.baseUrl}/v1/${scriptPath}`;
  const fetchRaw = (encoding: string) =>
    fetch(url, { headers: { "Accept-Encoding": encoding }, decompress: false } as RequestInit);

  test("is cached for good under its content hash, and has no source-map comment", async () => {
    const response = await fetchRaw("identity");
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toBe("text/javascript; charset=utf-8");
    expect(response.headers.get("Cache-Control")).toBe("public, max-age=31536000, immutable");
    expect(response.headers.get("Content-Encoding")).toBeNull();
    const script = await response.text();
    expect(script).toContain("createApiReference");
    expect(script).not.toContain("sourceMappingURL");
    const hash = new Bun.CryptoHasher("sha256").update(script).digest("hex").slice(0, 16);
    expect(scriptPath).toBe(`docs/scalar.${hash}.js`);
  });

  test("is sent brotli- or gzip-compressed when the client accepts it, the same bytes once decoded", async () => {
    const plain = new Uint8Array(await (await fetchRaw("identity")).arrayBuffer());
    const br = await fetchRaw("gzip, deflate, br");
    expect(br.headers.get("Content-Encoding")).toBe("br");
    expect(br.headers.get("Vary")).toBe("Accept-Encoding");
    const brBytes = new Uint8Array(await br.arrayBuffer());
    expect(brBytes.byteLength).toBeLessThan(plain.byteLength / 3);
    expect(new Uint8Array(brotliDecompressSync(brBytes))).toEqual(plain);
    const gz = await fetchRaw("gzip");
    expect(gz.headers.get("Content-Encoding")).toBe("gzip");
    expect(new Uint8Array(gunzipSync(new Uint8Array(await gz.arrayBuffer())))).toEqual(plain);
    const refused = await fetchRaw("br;q=0, gzip");
    expect(refused.headers.get("Content-Encoding")).toBe("gzip");
    // Compressing 4.9 MB once takes about a second, longer on a busy machine.
  }, 30_000);

  test("another hash is not found", async () => {
    const response = await fetch(`${api.server.baseUrl}/v1/docs/scalar.0000000000000000.js`);
    expect(response.status).toBe(404);
  });
});
