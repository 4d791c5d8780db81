// GET /metrics (Prometheus text format). It answers only when the operator configured a
// bearer token (metricsTokenFile, server/token-file.ts) and the scraper sends it: the API is
// usually reachable from the internet, and while no series carries an id or a secret, request
// rates and endpoint counts are still not the public's business. Without the setting /metrics
// is 404, as if it did not exist.
import { Hono } from "hono";
import type { Metrics } from "../metrics/metrics.ts";
import { requireFileToken } from "./token-file.ts";

export function metricsRoutes(metrics: Metrics, tokenFile: string | undefined): Hono {
  const app = new Hono();
  if (!tokenFile) return app;
  const token = requireFileToken(
    "metricsTokenFile",
    tokenFile,
    "Send the metrics token from metricsTokenFile as `Authorization: Bearer <token>`.",
  );
  app.get("/metrics", token, async (c) =>
    c.body(await metrics.registry.metrics(), 200, {
      "Content-Type": metrics.registry.contentType,
    }),
  );
  return app;
}
