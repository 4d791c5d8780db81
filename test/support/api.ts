// A running server with one service account, an API key and bank data, for /v1 suites.
import type { AccountFlags } from "../../src/accounts/service-accounts.ts";
import { createServiceAccount, updateServiceAccount } from "../../src/accounts/service-accounts.ts";
import type { Config } from "../../src/config/config.ts";
import { createApiKey } from "../../src/keys/api-keys.ts";
import type { AppOptions } from "../../src/server/app.ts";
import type { Services } from "../../src/server/services.ts";
import { type BankFixture, seedConnection } from "./bank-fixtures.ts";
import { createFakeClock, type FakeClock } from "./fake-clock.ts";
import { startTestServer, type TestServer } from "./server.ts";
import { createTestServices } from "./services.ts";

export interface Tenant {
  accountId: string;
  key: string;
  keyId: string;
  bank: BankFixture;
}

export interface ApiHarness {
  services: Services;
  clock: FakeClock;
  server: TestServer;
  /** GET baseUrl+path with `Authorization: Bearer key` (no header when key is null). */
  get(path: string, key: string | null, headers?: Record<string, string>): Promise<Response>;
  addTenant(email: string, flags?: AccountFlags): Promise<Tenant>;
  stop(): Promise<void>;
}

const password = "correct horse battery staple";

export async function startApiHarness(
  options: { config?: Partial<Config>; app?: AppOptions } = {},
): Promise<ApiHarness> {
  const clock = createFakeClock();
  const services = await createTestServices({
    clock,
    config: { apiRateLimitPerMinute: 0, ...options.config },
  });
  const server = startTestServer(services, options.app);
  return {
    services,
    clock,
    server,
    get(path, key, headers = {}) {
      return fetch(`${server.baseUrl}${path}`, {
        headers: { ...(key === null ? {} : { Authorization: `Bearer ${key}` }), ...headers },
      });
    },
    async addTenant(email, flags = {}) {
      const created = await createServiceAccount(services.db, clock, { email, password });
      const accountId = created.account.id;
      if (Object.keys(flags).length > 0)
        await updateServiceAccount(services.db, clock, accountId, flags);
      const key = await createApiKey(services.db, clock, {
        serviceAccountId: accountId,
        name: "test",
      });
      return {
        accountId,
        key: key.key,
        keyId: key.apiKey.id,
        bank: await seedConnection(services.db, clock, accountId),
      };
    },
    async stop() {
      await server.stop();
      await services.database.close();
    },
  };
}

export interface ErrorBodyShape {
  error: { code: string; message: string };
}

/** Reads an error response and checks it is exactly the envelope with a request id. */
export async function errorOf(response: Response): Promise<ErrorBodyShape["error"]> {
  const body = (await response.json()) as ErrorBodyShape;
  if (!response.headers.get("Svc-Request-Id")) throw new Error("error response without request id");
  const keys = Object.keys(body);
  const inner = Object.keys(body.error ?? {});
  if (keys.join() !== "error" || inner.sort().join() !== "code,message") {
    throw new Error(`not exactly the error envelope: ${JSON.stringify(body)}`);
  }
  return body.error;
}
