// `svc db copy --to URL`: moving an install from the embedded SQLite file to PostgreSQL.
import type { Command } from "commander";
import { ApiError } from "../core/errors.ts";
import type { copyToPostgres } from "../db/copy.ts";
import { databaseUrlProblem, redactDatabaseUrl } from "../db/database-url.ts";
import { CliUsageError, withServices } from "./context.ts";
import type { CliIo } from "./io.ts";
import { formatTable } from "./output.ts";
import { createProgress } from "./progress.ts";

export function registerDb(program: Command, io: CliIo): void {
  const db = program
    .command("db")
    .description("The database itself: move an install from SQLite to PostgreSQL.");

  db.command("copy")
    .description(
      "Copy this data dir's SQLite database into an empty PostgreSQL database, in one transaction.",
    )
    .requiredOption(
      "--to <url>",
      "the target, postgres://user:password@host:5432/database (must hold no data)",
    )
    .addHelpText(
      "after",
      `
Stop the server first, so nothing is written during the copy. The target is migrated, then
every table is copied and its row count checked before the transaction commits: the copy is
whole or nothing. The SQLite file is only read. Afterwards start the service with
SVC_DATABASE_URL set to the target, and keep master.key (or SVC_MASTER_KEY): the signing
secrets derive from it.`,
    )
    .action(async (options: { to: string }, cmd: Command) => {
      const problem = databaseUrlProblem(options.to);
      if (problem) throw new CliUsageError(`--to ${redactDatabaseUrl(options.to)}: ${problem}`);
      await withServices(io, cmd, async (services, out) => {
        const { database } = services;
        if (database.engine !== "sqlite") {
          throw new ApiError(
            "invalid_state",
            "This instance already keeps its data in PostgreSQL (databaseUrl is set); svc db copy reads the SQLite file of a data dir. Unset SVC_DATABASE_URL to copy from SQLite.",
          );
        }
        const progress = createProgress(io);
        let result: Awaited<ReturnType<typeof copyToPostgres>>;
        try {
          // Loaded here: the copy is not part of any other command's start.
          const { copyToPostgres } = await import("../db/copy.ts");
          result = await copyToPostgres(database, options.to, {
            onProgress: ({ table, copied, total }) =>
              progress.update(`${table}: ${copied}/${total}`),
          });
        } finally {
          progress.done();
        }
        const target = redactDatabaseUrl(options.to);
        out.result({ target, rows: result.rows, tables: result.tables }, () =>
          [
            formatTable(
              ["TABLE", "ROWS"],
              Object.entries(result.tables).map(([table, rows]) => [table, String(rows)]),
            ),
            "",
            `copied ${result.rows} rows from ${database.path} to ${target}; every table's count matches.`,
            "Next: set SVC_DATABASE_URL for the service, keep master.key, and start it.",
          ].join("\n"),
        );
      });
    });
}
