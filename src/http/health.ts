import { Hono } from "hono";
import type { Database } from "../db/open.ts";

/** /healthz: the process answers. /readyz: the database answers too. */
export function healthRoutes(database: Database): Hono {
  const app = new Hono();
  app.get("/healthz", (c) => c.json({ status: "ok" }));
  app.get("/readyz", (c) => {
    try {
      database.sqlite.query("SELECT 1").get();
      return c.json({ status: "ready" });
    } catch {
      return c.json({ status: "unavailable", reason: "database does not answer" }, 503);
    }
  });
  return app;
}
