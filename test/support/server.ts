import { startHttpServer } from "../../src/http/server.ts";
import type { Services } from "../../src/services.ts";

export interface TestServer {
  baseUrl: string;
  stop(): Promise<void>;
}

/** The real HTTP server (Bun.serve + the Hono app) on a free loopback port. */
export function startTestServer(services: Services): TestServer {
  const server = startHttpServer({
    ...services,
    config: { ...services.config, host: "127.0.0.1", port: 0 },
  });
  return {
    baseUrl: server.url.toString().replace(/\/$/, ""),
    stop: () => server.stop(true),
  };
}
