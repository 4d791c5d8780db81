import portalPage from "../../admin-ui/index.html";
import { loadConfig } from "../../src/config/config.ts";
import { type AppOptions, createHttpApp } from "../../src/server/app.ts";
import type { Services } from "../../src/server/services.ts";

export interface TestServer {
  /** Where the server listens (what tests connect to). */
  baseUrl: string;
  stop(): Promise<void>;
}

const defaultBaseUrl = loadConfig({ env: {}, cwd: "/", flags: { dataDir: "/tmp" } }).baseUrl;

/**
 * The real HTTP server (Bun.serve + the Hono app, as src/server/server.ts serves them) on a free
 * loopback port. Unless the test chose a base URL, the app's `baseUrl` is the address it listens
 * on, so the portal's same-origin check (Host and Origin against `baseUrl`) accepts requests to it.
 */
export function startTestServer(services: Services, options: AppOptions = {}): TestServer {
  let app: ReturnType<typeof createHttpApp> | undefined;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    development: false,
    fetch: (request, bunServer) => {
      if (!app) throw new Error("the test server's app is not ready");
      return app.fetch(request, bunServer);
    },
  });
  const baseUrl = server.url.toString().replace(/\/$/, "");
  const chosen = services.config.baseUrl !== defaultBaseUrl;
  const config = {
    ...services.config,
    host: "127.0.0.1",
    port: server.port as number,
    baseUrl: chosen ? services.config.baseUrl : baseUrl,
  };
  app = createHttpApp({ ...services, config }, { portalPage, ...options });
  return {
    baseUrl,
    stop: () => {
      const stopped = server.stop(true);
      app?.closeStreams();
      return stopped;
    },
  };
}
