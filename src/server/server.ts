// The HTTP(S) listener: the Hono app for /v1, /portal/api and health, plus the bundled portal.
import portalPage from "../../admin-ui/index.html";
import { maxJsonBodyBytes } from "../http/body-limit.ts";
import { maxImportBytes } from "../portal/routes/import-routes.ts";
import { type AppOptions, createHttpApp } from "./app.ts";
import type { Services } from "./services.ts";

/**
 * Bun's own default, said here because the event stream's heartbeat (5 s, api/events/stream.ts)
 * must come more often: a connection silent this long is closed.
 */
const listenerIdleTimeoutSeconds = 10;

export interface RunningServer {
  url: URL;
  /** Stops accepting; waits for in-flight requests, or cuts them off when `force` is set. */
  stop(force?: boolean): Promise<void>;
}

/** The listener could not start: the address is taken, not ours, or the TLS files are unusable. */
export class ListenError extends Error {
  override name = "ListenError";
}

export function startHttpServer(services: Services, options: AppOptions = {}): RunningServer {
  const { config } = services;
  const app = createHttpApp(services, { portalPage, ...options });
  const tls =
    config.tlsCertFile && config.tlsKeyFile
      ? { cert: Bun.file(config.tlsCertFile), key: Bun.file(config.tlsKeyFile) }
      : undefined;
  let server: ReturnType<typeof Bun.serve>;
  try {
    server = Bun.serve({
      hostname: config.host,
      port: config.port,
      development: false,
      // `svc serve --workers N`: the processes share the port; the kernel spreads connections.
      reusePort: config.workers > 1,
      idleTimeout: listenerIdleTimeoutSeconds,
      // The largest body any route accepts (the operator import; http/body-limit.ts bounds the
      // rest): Bun refuses a bigger one itself, before the app sees it.
      maxRequestBodySize: Math.max(maxImportBytes, maxJsonBodyBytes),
      ...(tls ? { tls } : {}),
      fetch: app.fetch,
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ListenError(
      `cannot listen on ${config.host}:${config.port}${tls ? " with TLS" : ""}: ${reason} ` +
        "(choose another address with --host/--port or SVC_HOST/SVC_PORT" +
        `${tls ? ", and check tlsCertFile and tlsKeyFile" : ""})`,
    );
  }
  return {
    url: server.url,
    stop: (force = false) => {
      // Stop accepting first, then end the event streams: they never finish by themselves.
      const stopped = server.stop(force);
      app.closeStreams();
      // Once no request is under way, what this process reserved and did not use is freed.
      return stopped.then(() => app.giveBackAllowance());
    },
  };
}
