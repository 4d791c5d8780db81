// Scalar's standalone API-reference bundle (a maintained renderer, inside the binary,
// working offline), served under a content-hashed URL and compressed lazily, once per process.
//
// Where the bundle comes from: `@scalar/api-reference` ships it as dist/browser/standalone.js
// but does not export it, and installing that package pulls ~268 packages (~278 MB of
// node_modules) for one file. Scalar's own Fastify integration, `@scalar/fastify-api-reference`,
// embeds the very same file (built from the same release) as a string literal and serves it at
// `<prefix>/js/scalar.js`; it needs 14 packages (~14 MB). Its built module is embedded in the
// binary as a file (not as code: a 4.9 MB string in the program's own source would cost every
// process, every CLI command included, ~25 MB of memory) and the literal is read out of it on
// the first visit to /v1/docs. The version is pinned exactly in package.json;
// test/api/docs-page.test.ts checks that what is read is exactly what the integration serves.
import { createHash } from "node:crypto";
import { promisify } from "node:util";
import { brotliCompress, gzip, constants as zlibConstants } from "node:zlib";
// The package exports only its module; this is its file, embedded as an asset (a path at run time).
import integrationModule from "../../../node_modules/@scalar/fastify-api-reference/dist/index.js" with {
  type: "file",
};

const literalMarker = "var standalone_default = ";

/** The JavaScript string literal starting at `start` (a `"`), decoded. */
function decodeStringLiteral(source: string, start: number): string {
  const parts: string[] = [];
  let i = start + 1;
  for (;;) {
    const quote = source.indexOf('"', i);
    const backslash = source.indexOf("\\", i);
    if (quote < 0) throw new Error("unterminated string literal");
    if (backslash < 0 || quote < backslash) {
      parts.push(source.slice(i, quote));
      return parts.join("");
    }
    parts.push(source.slice(i, backslash));
    const escaped = source[backslash + 1] as string;
    i = backslash + 2;
    switch (escaped) {
      case "n":
        parts.push("\n");
        break;
      case "r":
        parts.push("\r");
        break;
      case "t":
        parts.push("\t");
        break;
      case "b":
        parts.push("\b");
        break;
      case "f":
        parts.push("\f");
        break;
      case "v":
        parts.push("\v");
        break;
      case "0":
        parts.push("\0");
        break;
      case "x":
        parts.push(String.fromCharCode(Number.parseInt(source.slice(i, i + 2), 16)));
        i += 2;
        break;
      case "u":
        if (source[i] === "{") {
          const close = source.indexOf("}", i);
          parts.push(String.fromCodePoint(Number.parseInt(source.slice(i + 1, close), 16)));
          i = close + 1;
        } else {
          parts.push(String.fromCharCode(Number.parseInt(source.slice(i, i + 4), 16)));
          i += 4;
        }
        break;
      case "\r":
        if (source[i] === "\n") i++; // a line continuation adds nothing
        break;
      case "\n":
      case "\u2028":
      case "\u2029":
        break;
      default:
        parts.push(escaped);
    }
  }
}

/** Scalar's standalone bundle out of the integration's built module (its source text). */
export function standaloneFromIntegrationSource(source: string): string {
  const at = source.indexOf(literalMarker);
  if (at < 0 || source[at + literalMarker.length] !== '"') {
    throw new Error("@scalar/fastify-api-reference no longer embeds Scalar's standalone bundle");
  }
  const script = decodeStringLiteral(source, at + literalMarker.length);
  if (!script.includes("createApiReference")) {
    throw new Error("@scalar/fastify-api-reference embeds something else than Scalar's bundle");
  }
  return script;
}

async function standaloneFromIntegration(): Promise<string> {
  return standaloneFromIntegrationSource(
    await Bun.file(integrationModule as unknown as string).text(),
  );
}

/** The map file is not shipped; the comment would only make browsers ask for it. */
function withoutSourceMapComment(script: string): string {
  return script.replace(/\n?\/\/# sourceMappingURL=\S+\s*$/, "\n");
}

export interface ScalarBundle {
  /** The file name with a content hash, e.g. `scalar.1a2b3c4d5e6f7a8b.js`. */
  fileName: string;
  /** The body for `Accept-Encoding`, with its Content-Encoding (none = identity). */
  encoded(
    acceptEncoding: string | undefined,
  ): Promise<{ body: Uint8Array; encoding?: "br" | "gzip" }>;
}

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

let loading: Promise<ScalarBundle> | undefined;

/** The bundle, extracted and hashed on first use; each encoding compressed on first request. */
export function scalarBundle(): Promise<ScalarBundle> {
  loading ??= load().catch((error: unknown) => {
    loading = undefined; // a failure is answered 500 and tried again next time
    throw error;
  });
  return loading;
}

async function load(): Promise<ScalarBundle> {
  const script = new TextEncoder().encode(
    withoutSourceMapComment(await standaloneFromIntegration()),
  );
  const hash = createHash("sha256").update(script).digest("hex").slice(0, 16);
  // Compressed off the event loop (zlib's thread pool), each coding once, on first request.
  let brotli: Promise<Uint8Array> | undefined;
  let gzipped: Promise<Uint8Array> | undefined;
  return {
    fileName: `scalar.${hash}.js`,
    async encoded(acceptEncoding) {
      const accepted = parseAcceptEncoding(acceptEncoding);
      if (accepted.has("br")) {
        // Quality 9 (4.9 MB -> 1.18 MB in ~1 s); 11 saves another 10% but takes ~20 s of CPU.
        brotli ??= brotliAsync(script, {
          params: {
            [zlibConstants.BROTLI_PARAM_QUALITY]: 9,
            [zlibConstants.BROTLI_PARAM_MODE]: zlibConstants.BROTLI_MODE_TEXT,
            [zlibConstants.BROTLI_PARAM_SIZE_HINT]: script.byteLength,
          },
        }).catch((error: unknown) => {
          brotli = undefined; // the next request tries again
          throw error;
        });
        return { body: await brotli, encoding: "br" };
      }
      if (accepted.has("gzip")) {
        gzipped ??= gzipAsync(script, { level: 9 }).catch((error: unknown) => {
          gzipped = undefined;
          throw error;
        });
        return { body: await gzipped, encoding: "gzip" };
      }
      return { body: script };
    },
  };
}

/** Codings the client accepts (q=0 excluded). */
function parseAcceptEncoding(header: string | undefined): Set<string> {
  const accepted = new Set<string>();
  for (const part of (header ?? "").split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    if (!name) continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    if (q && Number(q.slice(2)) === 0) continue;
    accepted.add(name);
  }
  return accepted;
}
