// Assembles the HTTP application: request ids, one error model, and each feature's routes.
import { Hono } from "hono";
import { createV1App } from "../api/v1.ts";
import { createPortalApi } from "../portal/api.ts";
import type { Services } from "../services.ts";
import { createErrorHandler, notFoundHandler } from "./errors.ts";
import { healthRoutes } from "./health.ts";
import { requestIdMiddleware } from "./request-id.ts";

export function createApp(services: Services): Hono {
  const app = new Hono();
  app.use("*", requestIdMiddleware());
  app.onError(createErrorHandler(services.log));
  app.notFound(notFoundHandler);
  app.route("/", healthRoutes(services.database));
  app.route("/portal/api", createPortalApi(services));
  app.route("/v1", createV1App(services));
  return app;
}
