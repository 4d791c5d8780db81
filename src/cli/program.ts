// The `svc` command line: one binary, --help on every command, --json for scripts.
import { Command, CommanderError } from "commander";
import packageJson from "../../package.json" with { type: "json" };
import { ConfigError } from "../config/config.ts";
import { ApiError } from "../core/errors.ts";
import { toJsonNames } from "../core/json-names.ts";
import { MasterKeyError } from "../crypto/master-key.ts";
import { MigrationError } from "../db/migrate.ts";
import { DatabaseBusyError } from "../db/store.ts";
import { ListenError } from "../server/server.ts";
import { SetupCancelled } from "../setup/cancelled.ts";
import { registerAccounts } from "./accounts.ts";
import { registerConnect } from "./connect.ts";
import { CliFailure, CliUsageError, DataDirMissing } from "./context.ts";
import { registerDb } from "./db.ts";
import { registerDeliveries } from "./deliveries.ts";
import { registerDev } from "./dev.ts";
import { registerEndpoints } from "./endpoints.ts";
import { registerEvents } from "./events.ts";
import { registerHealth } from "./health.ts";
import { registerImport } from "./import.ts";
import type { CliIo } from "./io.ts";
import { registerKeys } from "./keys.ts";
import { registerListen } from "./listen.ts";
import { registerMail } from "./mail.ts";
import { registerMaintenance } from "./maintenance.ts";
import { registerSandbox } from "./sandbox.ts";
import { registerServe } from "./serve.ts";
import { registerSetup } from "./setup.ts";
import { registerSync } from "./sync.ts";

const cliVersion = packageJson.version;

export function buildProgram(io: CliIo): Command {
  const program = new Command("svc")
    .description("Svc: a self-hostable bank-data API with signed webhooks, in one executable.")
    .version(cliVersion, "-v, --version")
    .option(
      "--data-dir <dir>",
      "data directory: database, master key, svc.json (env SVC_DATA_DIR; default ./data)",
    )
    .option(
      "--config <file>",
      "config file to read instead of <data dir>/svc.json (env SVC_CONFIG)",
    )
    .option("--json", "machine-readable JSON on stdout")
    .showHelpAfterError("(add --help for usage)")
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .exitOverride();
  registerServe(program, io);
  registerDev(program, io);
  registerSetup(program, io);
  registerMaintenance(program, io);
  registerDb(program, io);
  registerAccounts(program, io);
  registerSandbox(program, io);
  registerConnect(program, io);
  registerSync(program, io);
  registerImport(program, io);
  registerEvents(program, io);
  registerListen(program, io);
  registerKeys(program, io);
  registerEndpoints(program, io);
  registerDeliveries(program, io);
  registerMail(program, io);
  registerHealth(program, io);
  // Every subcommand inherits the output routing and the no-exit behaviour.
  const configure = (command: Command) => {
    command.configureOutput({ writeOut: io.stdout, writeErr: io.stderr }).exitOverride();
    command.commands.forEach(configure);
  };
  program.commands.forEach(configure);
  return program;
}

function errorLine(error: unknown): { line: string; code: number; body?: unknown } {
  if (error instanceof ApiError)
    return { line: error.message, code: 1, body: toJsonNames(error.toBody()) };
  if (error instanceof CliUsageError) return { line: error.message, code: 2 };
  if (error instanceof CliFailure) return { line: error.message, code: 1 };
  if (error instanceof DataDirMissing) return { line: error.message, code: 78 };
  if (error instanceof ConfigError) return { line: `config: ${error.message}`, code: 78 };
  if (error instanceof MasterKeyError) return { line: `master key: ${error.message}`, code: 78 };
  if (error instanceof ListenError) return { line: error.message, code: 1 };
  if (error instanceof MigrationError) return { line: `database: ${error.message}`, code: 1 };
  if (error instanceof DatabaseBusyError) return { line: `database: ${error.message}`, code: 1 };
  if (error instanceof SetupCancelled) return { line: error.message, code: 1 };
  return {
    line: `unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    code: 1,
  };
}

/** Runs the CLI and returns the exit status (0 ok, 1 failed, 2 usage, 78 configuration). */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const program = buildProgram(io);
  try {
    if (argv.length === 0) {
      program.outputHelp();
      return 0;
    }
    await program.parseAsync(argv, { from: "user" });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version arrive here as "errors" with exit code 0. Everything else commander
      // refuses (unknown command or option, missing argument, a group without its subcommand)
      // is a usage error: exit 2, as for our own CliUsageError (README "Exit status").
      return error.exitCode === 0 ? 0 : 2;
    }
    const { line, code, body } = errorLine(error);
    const json = argv.includes("--json");
    io.stderr(json && body ? `${JSON.stringify(body)}\n` : `error: ${line}\n`);
    return code;
  }
}
