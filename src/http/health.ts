import { Hono } from "hono";
import type { Database } from "../db/open.ts";

/**
 * /healthz: the process answers (liveness). /readyz: start-up has finished, the service is not
 * stopping, and the database answers (readiness: send traffic, or go on with a deployment).
 */
export function healthRoutes(database: Database, isReady: () => boolean = () => true): Hono {
  const app = new Hono();
  app.get("/healthz", (c) => c.json({ status: "ok" }));
  app.get("/readyz", (c) => {
    if (!isReady()) return c.json({ status: "unavailable", reason: "starting or stopping" }, 503);
    try {
      database.sqlite.query("SELECT 1").get();
      return c.json({ status: "ready" });
    } catch {
      return c.json({ status: "unavailable", reason: "database does not answer" }, 503);
    }
  });
  return app;
}
