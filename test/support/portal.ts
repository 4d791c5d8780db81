// A signed-in portal client over real HTTP: keeps the session cookie and sends Origin.
import { createServiceAccount } from "../../src/accounts/service-accounts.ts";
import type { Services } from "../../src/server/services.ts";

export interface PortalClient {
  /** The session cookie as `name=value`. */
  cookie: string | undefined;
  /** Other cookies the server set (e.g. the bank-link cookie), by name, as `name=value`. */
  otherCookies: Map<string, string>;
  request(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
    /** Sent as is instead of JSON of `body` (for malformed-input tests). */
    rawBody?: string,
  ): Promise<Response>;
  json<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: T }>;
}

/**
 * `baseUrl` is where the server listens; `publicUrl` the instance's configured `baseUrl` when a
 * test chose one: Host and Origin name it, as a browser on the real site would.
 */
export function portalClient(baseUrl: string, publicUrl = baseUrl): PortalClient {
  const origin = new URL(publicUrl).origin;
  const host: Record<string, string> =
    publicUrl === baseUrl ? {} : { Host: new URL(publicUrl).host };
  const cookieHeader = () =>
    [client.cookie, ...client.otherCookies.values()].filter(Boolean).join("; ");
  const client: PortalClient = {
    cookie: undefined,
    otherCookies: new Map(),
    async request(method, path, body, headers = {}, rawBody = undefined) {
      const payload = rawBody ?? (body !== undefined ? JSON.stringify(body) : undefined);
      const response = await fetch(`${baseUrl}/portal/api${path}`, {
        method,
        headers: {
          Origin: origin,
          ...host,
          ...(payload !== undefined ? { "Content-Type": "application/json" } : {}),
          ...(cookieHeader() ? { Cookie: cookieHeader() } : {}),
          ...headers,
        },
        ...(payload !== undefined ? { body: payload } : {}),
      });
      for (const setCookie of response.headers.getSetCookie()) {
        const pair = setCookie.split(";")[0] ?? "";
        const name = pair.split("=")[0] ?? "";
        if (name.endsWith("svc_session")) client.cookie = pair;
        else client.otherCookies.set(name, pair);
      }
      return response;
    },
    async json(method, path, body) {
      const response = await client.request(method, path, body);
      const text = await response.text();
      return { status: response.status, body: (text ? JSON.parse(text) : undefined) as never };
    },
  };
  return client;
}

export const testPassword = "correct horse battery staple";

/** Creates an account whose user has a known password, and signs a client in as that user. */
export async function signedInOwner(
  services: Services,
  baseUrl: string,
  options: { email?: string; isOperator?: boolean; publicUrl?: string } = {},
): Promise<{ client: PortalClient; accountId: string; userId: string; email: string }> {
  const email = options.email ?? `owner-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const created = await createServiceAccount(services.db, services.clock, {
    email,
    password: testPassword,
    isOperator: options.isOperator ?? false,
  });
  const client = portalClient(baseUrl, options.publicUrl);
  const response = await client.request("POST", "/session", { email, password: testPassword });
  if (response.status !== 201)
    throw new Error(`sign-in failed: ${response.status} ${await response.text()}`);
  return { client, accountId: created.account.id, userId: created.userId, email };
}
