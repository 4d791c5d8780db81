// The HTTP(S) listener: the Hono app for /v1, /portal/api and health, plus the bundled portal.
import portalPage from "../../admin-ui/index.html";
import type { Services } from "../services.ts";
import { createApp } from "./app.ts";

export interface RunningServer {
  url: URL;
  /** Stops accepting; waits for in-flight requests, or cuts them off when `force` is set. */
  stop(force?: boolean): Promise<void>;
}

export function startHttpServer(services: Services): RunningServer {
  const { config } = services;
  const app = createApp(services);
  const tls =
    config.tlsCertFile && config.tlsKeyFile
      ? { cert: Bun.file(config.tlsCertFile), key: Bun.file(config.tlsKeyFile) }
      : undefined;
  const server = Bun.serve({
    hostname: config.host,
    port: config.port,
    development: false,
    ...(tls ? { tls } : {}),
    routes: { "/": portalPage },
    fetch: app.fetch,
  });
  return {
    url: server.url,
    stop: (force = false) => server.stop(force),
  };
}
