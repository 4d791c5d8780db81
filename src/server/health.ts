import { Hono } from "hono";
import type { Database } from "../db/store.ts";

/** /readyz gives up on a database that has not answered within this long. */
const readinessTimeoutMs = 2_000;

/**
 * /healthz: the process answers (liveness); it never touches the database, so a long write by
 * another process cannot make it slow. /readyz: start-up has finished, the service is not
 * stopping, and the database engine answers (readiness: send traffic, or go on with a deployment).
 */
export function healthRoutes(database: Database, isReady: () => boolean = () => true): Hono {
  const app = new Hono();
  app.get("/healthz", (c) => c.json({ status: "ok" }));
  app.get("/readyz", async (c) => {
    if (!isReady()) return c.json({ status: "unavailable", reason: "starting or stopping" }, 503);
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      await Promise.race([
        database.ping(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error("timeout")), readinessTimeoutMs);
        }),
      ]);
      return c.json({ status: "ready" });
    } catch {
      return c.json({ status: "unavailable", reason: "database does not answer" }, 503);
    } finally {
      clearTimeout(timer);
    }
  });
  return app;
}
