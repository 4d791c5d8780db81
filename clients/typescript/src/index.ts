// A typed client of the Svc /v1 read API: openapi-fetch over the types generated from the
// service's own OpenAPI document (schema.ts). Paths, parameters, bodies and error envelopes are
// checked by the compiler; nothing is hand-written per route.
import createClient, { type Client, type ClientOptions } from "openapi-fetch";
import type { components, operations, paths } from "./schema.js";

export type { components, operations, paths };

type Schemas = components["schemas"];
export type Account = Schemas["Account"];
export type Balance = Schemas["Balance"];
export type Transaction = Schemas["Transaction"];
export type Connection = Schemas["Connection"];
/** The error envelope every /v1 error answers: `{"error":{"code","message"}}`. */
export interface SvcError {
  error: { code: string; message: string };
}

export interface SvcClientOptions {
  /** The instance's address, e.g. `https://svc.example.com` (`/v1` is added unless present). */
  baseUrl: string;
  /** An API key, `svk_...`, sent as `Authorization: Bearer <key>` on every request. */
  apiKey: string;
  /** A fetch to use instead of the global one (tests, proxies, retries). */
  fetch?: ClientOptions["fetch"];
}

export type SvcClient = Client<paths>;

export function createSvcClient(options: SvcClientOptions): SvcClient {
  const base = options.baseUrl.replace(/\/+$/, "");
  return createClient<paths>({
    baseUrl: base.endsWith("/v1") ? base : `${base}/v1`,
    headers: { Authorization: `Bearer ${options.apiKey}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}
