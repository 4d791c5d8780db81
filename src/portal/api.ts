// The portal's JSON API under /portal/api (session cookie auth). Each route calls the same
// feature functions as the CLI; owner routes are scoped to the signed-in user's account.
import { Hono } from "hono";
import { sessionCookie } from "../http/cookies.ts";
import { sameOriginOnly } from "../http/same-origin.ts";
import { refuseChangesWhenDisabled, requireOperator, requireSession } from "./auth.ts";
import type { PortalDeps } from "./deps.ts";
import { bankLinkRoutes } from "./routes/bank-link-routes.ts";
import { connectionRoutes } from "./routes/connection-routes.ts";
import { deliveryRoutes } from "./routes/delivery-routes.ts";
import { endpointRoutes } from "./routes/endpoint-routes.ts";
import { keyRoutes } from "./routes/key-routes.ts";
import { operatorRoutes } from "./routes/operator-routes.ts";
import { overviewRoutes } from "./routes/overview-routes.ts";
import { sessionRoutes } from "./routes/session-routes.ts";

export function createPortalApi(services: PortalDeps): Hono {
  const { db, clock, config } = services;
  const cookie = sessionCookie(config.baseUrl);
  const session = requireSession(db, clock, cookie);
  const app = new Hono();
  app.use("*", sameOriginOnly(config.baseUrl, { host: config.host, port: config.port }));
  app.use("*", async (c, next) => {
    await next();
    // Portal answers may hold a key or secret shown once: never cache them.
    c.header("Cache-Control", "no-store");
  });
  app.route("/", sessionRoutes(services, cookie));
  const ownerGroups = [
    ["/overview", overviewRoutes(services)],
    ["/keys", keyRoutes(services)],
    ["/endpoints", endpointRoutes(services)],
    ["/deliveries", deliveryRoutes(services)],
    ["/connections", connectionRoutes(services)],
    ["/bank-links", bankLinkRoutes(services)],
  ] as const;
  // Owner routes of a disabled account are read-only (refuseChangesWhenDisabled); the operator
  // pages are not, so an operator can always re-enable accounts.
  for (const [prefix, routes] of ownerGroups) {
    app.use(prefix, session, refuseChangesWhenDisabled);
    app.use(`${prefix}/*`, session, refuseChangesWhenDisabled);
    app.route(prefix, routes);
  }
  app.use("/operator/*", session, requireOperator);
  app.route("/operator", operatorRoutes(services));
  return app;
}
