// `svc health`: the container's HEALTHCHECK. The image has no curl, so
// the binary asks its own server: GET /healthz (liveness) or /readyz (readiness) on the address
// `svc serve` listens on, with a deadline. It sends no credentials and reads only the status.
import type { Config } from "../config/config.ts";

export const healthProbeTimeoutMs = 3_000;

/** Where this instance's server answers, seen from the same host (or container). */
export function localServerUrl(config: Pick<Config, "host" | "port" | "tlsCertFile">): string {
  const scheme = config.tlsCertFile ? "https" : "http";
  // A wildcard listen address is reached through loopback.
  const host =
    config.host === "0.0.0.0" || config.host === ""
      ? "127.0.0.1"
      : config.host === "::"
        ? "[::1]"
        : config.host.includes(":") && !config.host.startsWith("[")
          ? `[${config.host}]`
          : config.host;
  return `${scheme}://${host}:${config.port}`;
}

export interface HealthProbeResult {
  url: string;
  healthy: boolean;
  /** The HTTP status, when the server answered. */
  statusCode: number | null;
  /** Why it is not healthy, in words. */
  problem: string | null;
}

export async function probeHealth(
  baseUrl: string,
  options: { ready?: boolean; timeoutMs?: number } = {},
): Promise<HealthProbeResult> {
  const url = `${baseUrl.replace(/\/+$/, "")}${options.ready ? "/readyz" : "/healthz"}`;
  const timeoutMs = options.timeoutMs ?? healthProbeTimeoutMs;
  try {
    const response = await fetch(url, {
      signal: AbortSignal.timeout(timeoutMs),
      redirect: "manual",
      // The server's own listener on loopback: its certificate names the public host, not the
      // loopback address, and nothing secret is sent or read.
      tls: { rejectUnauthorized: false },
    });
    await response.body?.cancel();
    const healthy = response.status === 200;
    return {
      url,
      healthy,
      statusCode: response.status,
      problem: healthy ? null : `answered ${response.status}`,
    };
  } catch (error) {
    const timedOut = (error as Error).name === "TimeoutError";
    return {
      url,
      healthy: false,
      statusCode: null,
      problem: timedOut
        ? `no answer within ${timeoutMs} ms`
        : `cannot connect (${(error as Error).message})`,
    };
  }
}
