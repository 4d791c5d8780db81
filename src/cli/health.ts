import type { Command } from "commander";
import { CliFailure, CliUsageError, configFor, outputFor } from "./context.ts";
import { healthProbeTimeoutMs, localServerUrl, probeHealth } from "./health-probe.ts";
import type { CliIo } from "./io.ts";

export function registerHealth(program: Command, io: CliIo): void {
  program
    .command("health")
    .description(
      "Ask the running server whether it is alive (GET /healthz) or ready (--ready, GET /readyz); exit 0 if so, else 1. The container image's HEALTHCHECK.",
    )
    .option("--ready", "check readiness (start-up done, database answering) instead of liveness")
    .option(
      "--url <url>",
      "the server's base URL (default: the host and port `svc serve` listens on)",
    )
    .option("--timeout-ms <ms>", `give up after this long (default ${healthProbeTimeoutMs})`)
    .action(
      async (options: { ready?: boolean; url?: string; timeoutMs?: string }, cmd: Command) => {
        const timeoutMs = options.timeoutMs === undefined ? undefined : Number(options.timeoutMs);
        if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs > 0)) {
          throw new CliUsageError(
            `--timeout-ms must be a whole number above 0; got "${options.timeoutMs}"`,
          );
        }
        if (options.url !== undefined && !/^https?:\/\/[^/]/.test(options.url)) {
          throw new CliUsageError(`--url must be an http:// or https:// URL; got "${options.url}"`);
        }
        // Only the listen address is needed: no data dir, no database, no master key.
        const baseUrl = options.url ?? localServerUrl(configFor(io, cmd));
        const result = await probeHealth(baseUrl, {
          ...(options.ready ? { ready: true } : {}),
          ...(timeoutMs !== undefined ? { timeoutMs } : {}),
        });
        outputFor(io, cmd).result(result, () =>
          result.healthy ? `${result.url}: ok` : `${result.url}: ${result.problem}`,
        );
        if (!result.healthy) throw new CliFailure(`not healthy: ${result.problem}`);
      },
    );
}
