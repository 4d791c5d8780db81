// Outbound calls to bank providers: HTTPS only, TLS
// verified against the system roots plus `providerCaFile`, a timeout on every call, and for a
// URL a user supplied (a SimpleFIN setup token or access URL) the same public-address guard as
// webhook deliveries, checked on the address actually dialled (no DNS-rebinding gap).
// Credentials in a URL (user:pass@) travel as HTTP Basic auth. Messages name a URL by scheme
// and host only: a path or query can hold a secret (a SimpleFIN claim URL's path is the
// unclaimed token). A redirect is followed only when the caller asks, only over https to the
// same host, and each hop is dialled through the same address guard.
import https from "node:https";
import type { SecureContext } from "node:tls";
import { checkAddress } from "../../net/address-guard.ts";
import { urlHostAddress } from "../../net/checked-addresses.ts";
import { type Resolver, systemResolver } from "../../net/resolver.ts";
import { trustContext } from "../../net/trust.ts";
import { ProviderError } from "./errors.ts";

const providerTimeoutMs = 30_000;
/** The largest provider answer we read (a page of transactions is far smaller). */
const maxProviderResponseBytes = 16 * 1024 * 1024;

export interface ProviderHttpOptions {
  /** PEM file of extra CA certificates trusted in addition to the system roots. */
  caFile?: string | undefined;
  /** Lifts the public-address guard (tests and development only). */
  allowPrivate: boolean;
  timeoutMs?: number;
  resolve?: Resolver;
}

export interface ProviderRequest {
  method: "GET" | "POST" | "DELETE";
  url: string;
  headers?: Record<string, string>;
  body?: string;
  /** The URL came from a user: only public addresses may be dialled. */
  userSupplied?: boolean;
  /** Follow up to this many redirects to the same host over https (default: none). */
  sameHostRedirects?: number;
}

export interface ProviderResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export interface ProviderHttp {
  request(request: ProviderRequest): Promise<ProviderResponse>;
}

/** The URL as messages show it: scheme and host only (no credentials, path or query). */
export function shownUrl(url: URL): string {
  return `${url.protocol}//${url.host}`;
}

const redirectStatuses = new Set([301, 302, 303, 307, 308]);

/**
 * Where a redirect answer leads, when it may be followed: https and the very same host and
 * port. Anything else is refused with a message that names hosts only.
 */
function redirectTarget(from: URL, location: string | undefined): URL {
  const target = location && URL.canParse(location, from) ? new URL(location, from) : undefined;
  if (!target)
    throw new ProviderError("unavailable", `${shownUrl(from)} redirected without a location`);
  if (target.protocol !== "https:" || target.host !== from.host)
    throw new ProviderError(
      "bad_config",
      `${shownUrl(from)} redirected to ${shownUrl(target)}; only redirects to the same host over https are followed`,
    );
  // The credentials of the first URL travel on to the same host.
  target.username = from.username;
  target.password = from.password;
  return target;
}

async function dialAddress(
  url: URL,
  options: ProviderHttpOptions,
  resolve: Resolver,
): Promise<string> {
  const { literal, host } = urlHostAddress(url);
  let addresses: string[];
  try {
    addresses = literal ? [host] : await resolve(host);
  } catch (error) {
    throw new ProviderError(
      "unavailable",
      `${host} cannot be resolved (${(error as Error).message})`,
    );
  }
  const first = addresses[0];
  if (!first) throw new ProviderError("unavailable", `${host} has no address`);
  for (const address of addresses) {
    const verdict = checkAddress(address, { allowPrivate: options.allowPrivate });
    if (!verdict.allowed) {
      throw new ProviderError(
        "bad_config",
        `${shownUrl(url)} refused: ${verdict.reason}; provider URLs must be publicly reachable`,
      );
    }
  }
  const verdict = checkAddress(first, { allowPrivate: options.allowPrivate });
  return verdict.allowed ? verdict.dialAddress : first;
}

export function createProviderHttp(options: ProviderHttpOptions): ProviderHttp {
  const secureContext: SecureContext | undefined = trustContext(options.caFile, "providerCaFile");
  const timeoutMs = options.timeoutMs ?? providerTimeoutMs;
  const resolve = options.resolve ?? systemResolver;

  async function requestOnce(input: ProviderRequest): Promise<ProviderResponse> {
    let url: URL;
    try {
      url = new URL(input.url);
    } catch {
      throw new ProviderError("bad_config", "provider URL is not a valid URL");
    }
    if (url.protocol !== "https:") {
      throw new ProviderError("bad_config", `${shownUrl(url)}: provider calls must use https`);
    }
    const headers: Record<string, string> = { Accept: "application/json", ...input.headers };
    if (url.username || url.password) {
      const user = decodeURIComponent(url.username);
      const pass = decodeURIComponent(url.password);
      headers.Authorization = `Basic ${Buffer.from(`${user}:${pass}`).toString("base64")}`;
    }
    if (input.body !== undefined) headers["Content-Length"] = String(Buffer.byteLength(input.body));
    const { literal, host } = urlHostAddress(url);
    const dial = input.userSupplied ? await dialAddress(url, options, resolve) : host;
    const shown = shownUrl(url);

    return new Promise<ProviderResponse>((settle, reject) => {
      const req = https.request(
        {
          method: input.method,
          host: dial,
          port: url.port === "" ? 443 : Number(url.port),
          path: `${url.pathname}${url.search}`,
          headers: { ...headers, Host: url.host },
          ...(literal ? {} : { servername: url.hostname }),
          ...(secureContext ? { secureContext } : {}),
          timeout: timeoutMs,
        },
        (response) => {
          const chunks: Buffer[] = [];
          let size = 0;
          response.on("data", (chunk: Buffer) => {
            size += chunk.length;
            if (size > maxProviderResponseBytes) {
              response.destroy();
              reject(new ProviderError("unavailable", `${shown}: answer larger than allowed`));
              return;
            }
            chunks.push(chunk);
          });
          response.on("end", () =>
            settle({
              status: response.statusCode ?? 0,
              headers: response.headers,
              text: Buffer.concat(chunks).toString("utf8"),
            }),
          );
          response.on("error", (error) =>
            reject(new ProviderError("unavailable", `${shown}: ${error.message}`)),
          );
        },
      );
      req.on("timeout", () => {
        req.destroy();
        reject(new ProviderError("unavailable", `${shown}: no answer within ${timeoutMs} ms`));
      });
      req.on("error", (error) =>
        reject(new ProviderError("unavailable", `${shown}: ${error.message}`)),
      );
      req.end(input.body);
    });
  }

  async function request(input: ProviderRequest): Promise<ProviderResponse> {
    let current = input;
    for (let hop = 0; ; hop++) {
      const response = await requestOnce(current);
      const hops = current.sameHostRedirects ?? 0;
      if (!redirectStatuses.has(response.status) || hops === 0) return response;
      if (hop >= hops)
        throw new ProviderError("unavailable", "the provider redirected too many times");
      const header = response.headers.location;
      const target = redirectTarget(
        new URL(current.url),
        Array.isArray(header) ? header[0] : header,
      );
      // 307/308 repeat the request as it was; 301/302/303 continue with a GET (as browsers do).
      const keep = response.status === 307 || response.status === 308;
      const { body: _body, ...rest } = current;
      current = keep
        ? { ...current, url: target.toString() }
        : { ...rest, method: "GET", url: target.toString() };
    }
  }

  return { request };
}

/** Parses a JSON answer, or fails as the provider being unavailable (it sent garbage). */
export function jsonBody(response: ProviderResponse, what: string): unknown {
  try {
    return JSON.parse(response.text);
  } catch {
    throw new ProviderError("unavailable", `${what}: the provider answered with invalid JSON`);
  }
}
