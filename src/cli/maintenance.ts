import { resolve } from "node:path";
import type { Command } from "commander";
import { backupInstance } from "../backup/backup.ts";
import { migrateDatabase } from "../db/migrate.ts";
import { withServices } from "./context.ts";
import type { CliIo } from "./io.ts";
import { createProgress } from "./progress.ts";

export function registerMaintenance(program: Command, io: CliIo): void {
  program
    .command("migrate")
    .description(
      "Bring the database schema up to date (also done at every start). A second run changes nothing.",
    )
    .action(async (_options: unknown, cmd: Command) => {
      await withServices(
        io,
        cmd,
        async (services, out) => {
          // openServices already migrated; running again reports the settled state.
          const result = await migrateDatabase(services.database);
          out.result(
            {
              database: services.database.location,
              migrations: result.total,
              applied: result.applied,
            },
            `database ${services.database.location} is up to date (${result.total} migration${result.total === 1 ? "" : "s"})`,
          );
        },
        { createsDataDir: true },
      );
    });

  program
    .command("backup")
    .argument("<dir>", "directory to create (must not exist, or be empty)")
    .description(
      "Write an online backup (database snapshot, master key, config) into a new directory.",
    )
    .addHelpText(
      "after",
      `
The backup is a complete data dir. Restore by starting from it:
  svc serve --data-dir <dir>
The server may keep running while the backup is taken. When the master key comes from
SVC_MASTER_KEY it is not written to the backup; keep that value with it.`,
    )
    .action(async (dir: string, _options: unknown, cmd: Command) => {
      await withServices(io, cmd, async (services, out) => {
        const progress = createProgress(io);
        let result: Awaited<ReturnType<typeof backupInstance>>;
        try {
          result = await backupInstance(services, resolve(io.cwd, dir), {
            onProgress: (step) => progress.update(`backup: ${step}...`),
          });
        } finally {
          progress.done();
        }
        out.result(result, () =>
          [
            `backup written to ${result.directory}`,
            `  database    ${result.databaseFile} (${result.databaseBytes} bytes)`,
            `  master key  ${result.masterKeyIncluded ? "included" : "NOT included"}`,
            `  config      ${result.configIncluded ? "included" : "none in the data dir"}`,
            ...result.warnings.map((w) => `warning: ${w}`),
            `restore with: svc serve --data-dir ${result.directory}`,
          ].join("\n"),
        );
      });
    });
}
