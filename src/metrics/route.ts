// GET /metrics (Prometheus text format). It answers only when the operator configured a
// bearer token (metricsTokenFile) and the scraper sends it: the API is usually reachable from
// the internet, and while no series carries an id or a secret, request rates and endpoint
// counts are still not the public's business. A file, not a value, so the token never shows in
// `ps` or in the environment (Prometheus' `authorization.credentials_file`, systemd's
// LoadCredential= and Docker secrets are all files). Without the setting /metrics is 404, as if
// it did not exist.
import { readFileSync } from "node:fs";
import { Hono } from "hono";
import { ConfigError } from "../config.ts";
import { constantTimeEqual, sha256Hex } from "../crypto/tokens.ts";
import { ApiError } from "../http/errors.ts";
import type { Metrics } from "./metrics.ts";

export const minMetricsTokenLength = 32;
const bearerPattern = /^Bearer +(\S+) *$/i;

/** Reads and checks the token file; a bad file stops start-up with a config error. */
export function readMetricsToken(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigError(
      `metricsTokenFile ${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? error})`,
    );
  }
  const token = text.trim();
  if (token.length < minMetricsTokenLength || /\s/.test(token)) {
    throw new ConfigError(
      `metricsTokenFile ${path}: must hold one token of at least ${minMetricsTokenLength} characters without spaces (e.g. from \`openssl rand -hex 32\`)`,
    );
  }
  return token;
}

export function metricsRoutes(metrics: Metrics, tokenFile: string | undefined): Hono {
  const app = new Hono();
  if (!tokenFile) return app;
  // Compared as hashes: equal lengths, so the comparison says nothing about the token's length.
  const expectedHash = sha256Hex(readMetricsToken(tokenFile));
  app.get("/metrics", async (c) => {
    c.header("Cache-Control", "no-store");
    const presented = bearerPattern.exec(c.req.header("authorization") ?? "")?.[1];
    if (presented === undefined || !constantTimeEqual(sha256Hex(presented), expectedHash)) {
      throw new ApiError(
        "not_authenticated",
        "Send the metrics token from metricsTokenFile as `Authorization: Bearer <token>`.",
      );
    }
    return c.body(await metrics.registry.metrics(), 200, {
      "Content-Type": metrics.registry.contentType,
    });
  });
  return app;
}
