// The operator HTTP API for scripts and other systems: `/operator/...` with the bearer token from
// operatorTokenFile (server/token-file.ts), instead of a portal session. It holds what an operator
// automates: bank-data ingest (`POST /operator/import?account=<id>`, the same route and JSON as
// `svc import` and the portal's). Without the setting the prefix does not exist (404).
import { Hono } from "hono";
import { createImportRoutes } from "../portal/routes/import-routes.ts";
import type { Services } from "./services.ts";
import { requireFileToken } from "./token-file.ts";

export function createOperatorApi(services: Services): Hono {
  const app = new Hono();
  const tokenFile = services.config.operatorTokenFile;
  if (!tokenFile) return app;
  app.use(
    "*",
    requireFileToken(
      "operatorTokenFile",
      tokenFile,
      "Send the operator token from operatorTokenFile as `Authorization: Bearer <token>`.",
    ),
  );
  app.route("/import", createImportRoutes(services));
  return app;
}
