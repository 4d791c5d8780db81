import type { Command } from "commander";
import { type SyncResult, syncAllConnections, syncConnection } from "../banking/sync.ts";
import { ApiError } from "../core/errors.ts";
import { withServices } from "./context.ts";
import type { CliIo } from "./io.ts";
import { formatTable } from "./output.ts";
import { createProgress } from "./progress.ts";

function detail(result: SyncResult): string {
  switch (result.outcome) {
    case "succeeded":
      return `${result.newTransactions} new transactions, ${result.eventsRaised} events`;
    case "failed":
      return result.error;
    case "busy":
      return "another sync of this connection is running";
    case "too_soon":
      return `next allowed at ${result.nextAllowedAt}`;
  }
}

export function registerSync(program: Command, io: CliIo): void {
  program
    .command("sync")
    .description(
      "Sync bank connections now (the server also syncs on its schedule). Runs even if the provider's minimum interval has not passed; never runs two syncs of one connection at once.",
    )
    .option(
      "--connection <id>",
      "only this connection (default: every connection a provider can pull)",
    )
    .action(async (options: { connection?: string }, cmd: Command) => {
      const results = await withServices(io, cmd, async (services, out) => {
        const progress = createProgress(io);
        let results: SyncResult[];
        try {
          results = options.connection
            ? [await syncConnection(services, options.connection, { trigger: "cli", force: true })]
            : await syncAllConnections(services, { trigger: "cli", force: true }, (done, total) =>
                progress.update(`syncing connection ${done + 1}/${total}`),
              );
        } finally {
          progress.done();
        }
        out.result(options.connection ? results[0] : results, () =>
          formatTable(
            ["CONNECTION", "OUTCOME", "STATUS", "DETAIL"],
            results.map((r) => [
              r.connectionId,
              r.outcome,
              "status" in r ? r.status : null,
              detail(r),
            ]),
          ),
        );
        return results;
      });
      const failed = results.filter((r) => r.outcome === "failed" || r.outcome === "busy");
      if (failed.length > 0) {
        throw new ApiError(
          failed.some((r) => r.outcome === "busy") ? "conflict" : "unavailable",
          `${failed.length} of ${results.length} sync${results.length === 1 ? "" : "s"} did not complete`,
        );
      }
    });
}
