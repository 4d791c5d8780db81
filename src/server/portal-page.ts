// The portal's page and its bundled script and style sheet, answered by the app instead of Bun's
// own HTML route, so they carry the headers every portal answer must (http/security-headers.ts):
// Bun serves an HTML import only through `routes`, which takes no middleware and no extra headers.
//
// On the first request, the bundle is fetched once from a short-lived loopback listener that
// serves it the way Bun does (bundled at build time in the compiled binary, on first use
// otherwise), kept in memory (about 150 KB), and the listener stops. The page and its assets then
// answer from memory with Bun's ETag and Cache-Control, conditional requests answered 304.
import type { HTMLBundle } from "bun";
import type { Context } from "hono";
import { ifNoneMatchMatches, notModifiedResponse } from "../api/middleware/etag.ts";

interface Asset {
  body: Uint8Array<ArrayBuffer>;
  headers: Headers;
}

/** The page's own files, referenced from it by absolute path (`/chunk-….js`, `/chunk-….css`). */
const assetReference = /\b(?:src|href)="(\/[^"/?#][^"?#]*)"/g;
/** Headers of Bun's answer kept on ours; the rest (date, length) are the listener's own. */
const keptHeaders = ["content-type", "etag", "cache-control"];

async function collect(page: HTMLBundle): Promise<Map<string, Asset>> {
  const listener = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    development: false,
    routes: { "/": page },
    fetch: () => new Response(null, { status: 404 }),
  });
  try {
    const assets = new Map<string, Asset>();
    const load = async (path: string) => {
      const response = await fetch(new URL(path, listener.url));
      if (!response.ok) throw new Error(`the portal bundle has no ${path} (${response.status})`);
      const headers = new Headers();
      for (const name of keptHeaders) {
        const value = response.headers.get(name);
        if (value !== null) headers.set(name, value);
      }
      const asset = { body: new Uint8Array(await response.arrayBuffer()), headers };
      assets.set(path, asset);
      return asset;
    };
    const index = await load("/");
    const html = new TextDecoder().decode(index.body);
    await Promise.all([...html.matchAll(assetReference)].map((match) => load(match[1] as string)));
    return assets;
  } finally {
    void listener.stop(true);
  }
}

export interface PortalPage {
  /** The page or one of its files for a GET or HEAD of `path`; undefined for any other path. */
  answer(c: Context): Promise<Response | undefined>;
}

export function createPortalPage(page: HTMLBundle): PortalPage {
  let assets: Promise<Map<string, Asset>> | undefined;
  return {
    async answer(c) {
      assets ??= collect(page).catch((error: unknown) => {
        assets = undefined; // answered 500 now, tried again on the next request
        throw error;
      });
      const asset = (await assets).get(c.req.path);
      if (!asset) return undefined;
      const headers = new Headers(asset.headers);
      if (ifNoneMatchMatches(c.req.header("if-none-match"), headers.get("etag") ?? "")) {
        return notModifiedResponse(headers);
      }
      return new Response(c.req.method === "HEAD" ? null : asset.body, { status: 200, headers });
    },
  };
}
