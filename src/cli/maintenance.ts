import { resolve } from "node:path";
import type { Command } from "commander";
import { backupInstance } from "../backup/backup.ts";
import { type BackupCheck, checkBackup } from "../backup/verify.ts";
import { parseMasterKey } from "../crypto/master-key.ts";
import { migrateDatabase } from "../db/migrate.ts";
import { CliFailure, CliUsageError, outputFor, withServices } from "./context.ts";
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
    .argument("[dir]", "directory to create (must not exist, or be empty)")
    .option("--verify <dir>", "check an existing backup instead of writing one")
    .description(
      "Write an online backup (database snapshot, master key, config) into a new directory, and check it; or check an existing backup with --verify.",
    )
    .addHelpText(
      "after",
      `
The backup is a complete data dir (mode 0700, files 0600). Restore by starting from it:
  svc serve --data-dir <dir>
On PostgreSQL the snapshot is <dir>/svc.pgdump: restore it into a new, empty database first,
  pg_restore --no-owner --dbname=postgres://USER@HOST:5432/NEW_DATABASE <dir>/svc.pgdump
  svc serve --data-dir <dir> --database-url postgres://USER@HOST:5432/NEW_DATABASE
(serve and migrate refuse a data dir holding svc.pgdump when no database URL is set).
The server may keep running while the backup is taken. What was written is checked before the
command succeeds: the snapshot is read back by its engine (SQLite's PRAGMA integrity_check, or
pg_restore for svc.pgdump) and the master key must match the snapshot's check value.
When the master key comes from SVC_MASTER_KEY it is not written to the backup; keep that value
with it (set it when running --verify).

  svc backup --verify <dir>   exits 1 and says why when the backup is unfit or unsafe to keep`,
    )
    .action(async (dir: string | undefined, options: { verify?: string }, cmd: Command) => {
      if (options.verify !== undefined) {
        if (dir !== undefined)
          throw new CliUsageError("give either <dir> or --verify <dir>, not both");
        await verifyBackupCommand(io, cmd, options.verify);
        return;
      }
      if (dir === undefined)
        throw new CliUsageError("missing the backup directory: svc backup <dir>");
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
            `  checked     integrity ${result.check.integrity}, master key ${result.check.masterKey}`,
            ...result.warnings.map((w) => `warning: ${w}`),
            ...(result.restoreSteps.length === 1
              ? [`restore with: ${result.restoreSteps[0]}`]
              : [
                  "restore with:",
                  ...result.restoreSteps.map((step, index) => `  ${index + 1}. ${step}`),
                ]),
          ].join("\n"),
        );
      });
    });
}

/** `svc backup --verify DIR`: needs no data dir and opens no live database. */
async function verifyBackupCommand(io: CliIo, cmd: Command, dir: string): Promise<void> {
  const out = outputFor(io, cmd);
  const fromEnv = io.env.SVC_MASTER_KEY;
  const check: BackupCheck = await checkBackup(resolve(io.cwd, dir), {
    ...(fromEnv
      ? { masterKey: { bytes: parseMasterKey(fromEnv, "SVC_MASTER_KEY"), source: "env" as const } }
      : {}),
  });
  out.result(check, () =>
    [
      `backup ${check.directory}`,
      `  database    ${check.databaseFile ?? "none"}${check.engine ? ` (${check.engine})` : ""}`,
      `  integrity   ${check.integrity}`,
      `  master key  ${check.masterKey}`,
      ...check.problems.map((p) => `problem: ${p}`),
      check.problems.length === 0 ? "the backup is sound" : "",
    ]
      .filter(Boolean)
      .join("\n"),
  );
  if (check.problems.length > 0) {
    throw new CliFailure(
      `the backup in ${check.directory} has ${check.problems.length} problem${check.problems.length === 1 ? "" : "s"}`,
    );
  }
}
