// A signed-in portal client over real HTTP: keeps the session cookie and sends Origin.
import { createServiceAccount } from "../../src/accounts/service-accounts.ts";
import type { Services } from "../../src/services.ts";

export interface PortalClient {
  cookie: string | undefined;
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

export function portalClient(baseUrl: string): PortalClient {
  const client: PortalClient = {
    cookie: undefined,
    async request(method, path, body, headers = {}, rawBody = undefined) {
      const payload = rawBody ?? (body !== undefined ? JSON.stringify(body) : undefined);
      const response = await fetch(`${baseUrl}/portal/api${path}`, {
        method,
        headers: {
          Origin: baseUrl,
          ...(payload !== undefined ? { "Content-Type": "application/json" } : {}),
          ...(client.cookie ? { Cookie: client.cookie } : {}),
          ...headers,
        },
        ...(payload !== undefined ? { body: payload } : {}),
      });
      const setCookie = response.headers.get("set-cookie");
      if (setCookie) client.cookie = setCookie.split(";")[0];
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
  options: { email?: string; isOperator?: boolean } = {},
): Promise<{ client: PortalClient; accountId: string; userId: string; email: string }> {
  const email = options.email ?? `owner-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const created = await createServiceAccount(services.db, services.clock, {
    email,
    password: testPassword,
    isOperator: options.isOperator ?? false,
  });
  const client = portalClient(baseUrl);
  const response = await client.request("POST", "/session", { email, password: testPassword });
  if (response.status !== 201)
    throw new Error(`sign-in failed: ${response.status} ${await response.text()}`);
  return { client, accountId: created.account.id, userId: created.userId, email };
}
