// The portal's JSON API under /portal/api (session cookie auth). Each route calls the same
// feature functions as the CLI.
import { Hono } from "hono";
import type { Services } from "../services.ts";
import { requireOperator, requireSession } from "./auth.ts";
import { sessionCookie } from "./cookies.ts";
import { operatorRoutes } from "./routes/operator-routes.ts";
import { sessionRoutes } from "./routes/session-routes.ts";
import { sameOriginOnWrites } from "./same-origin.ts";

export function createPortalApi(services: Services): Hono {
  const { db, clock, config } = services;
  const cookie = sessionCookie(config.baseUrl);
  const session = requireSession(db, clock, cookie);
  const app = new Hono();
  app.use("*", sameOriginOnWrites(config.baseUrl));
  app.use("*", async (c, next) => {
    await next();
    // Portal answers may hold a key or secret shown once: never cache them.
    c.header("Cache-Control", "no-store");
  });
  app.route("/", sessionRoutes(services, cookie));
  app.use("/operator/*", session, requireOperator);
  app.route("/operator", operatorRoutes(services));
  return app;
}
