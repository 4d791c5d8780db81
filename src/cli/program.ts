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
import { CliFailure, CliUsageError, DataDirMissing } from "./context.ts";
import type { CliIo } from "./io.ts";

const cliVersion = packageJson.version;

type Register = (program: Command, io: CliIo) => void;

interface CommandModule {
  /** The top-level commands the module registers. */
  names: readonly string[];
  load: () => Promise<Register>;
}

/**
 * Each command's module, in `svc --help`'s order. A command loads only its own module: the
 * others' imports (the setup wizard, backup, the sandbox, listen...) would cost every start,
 * `svc serve`'s included, their loading time.
 */
export const commandModules: readonly CommandModule[] = [
  { names: ["serve"], load: async () => (await import("./serve.ts")).registerServe },
  { names: ["dev"], load: async () => (await import("./dev.ts")).registerDev },
  { names: ["setup"], load: async () => (await import("./setup.ts")).registerSetup },
  {
    names: ["migrate", "backup"],
    load: async () => (await import("./maintenance.ts")).registerMaintenance,
  },
  { names: ["db"], load: async () => (await import("./db.ts")).registerDb },
  { names: ["accounts"], load: async () => (await import("./accounts.ts")).registerAccounts },
  { names: ["sandbox"], load: async () => (await import("./sandbox.ts")).registerSandbox },
  {
    names: ["connect", "connections", "providers"],
    load: async () => (await import("./connect.ts")).registerConnect,
  },
  { names: ["sync"], load: async () => (await import("./sync.ts")).registerSync },
  { names: ["import"], load: async () => (await import("./import.ts")).registerImport },
  { names: ["events"], load: async () => (await import("./events.ts")).registerEvents },
  { names: ["listen"], load: async () => (await import("./listen.ts")).registerListen },
  { names: ["keys"], load: async () => (await import("./keys.ts")).registerKeys },
  { names: ["endpoints"], load: async () => (await import("./endpoints.ts")).registerEndpoints },
  { names: ["deliveries"], load: async () => (await import("./deliveries.ts")).registerDeliveries },
  { names: ["mail"], load: async () => (await import("./mail.ts")).registerMail },
  { names: ["health"], load: async () => (await import("./health.ts")).registerHealth },
];

/** Global options that take a value (the word after them is not a command). */
const globalOptionsWithValue = new Set(["--data-dir", "--config"]);

/** The command word of `argv` (`svc --data-dir d serve ...` -> "serve"), if there is one. */
function commandWord(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--") return undefined;
    if (globalOptionsWithValue.has(arg)) i++;
    else if (!arg.startsWith("-")) return arg;
  }
  return undefined;
}

/**
 * The `svc` program. Given `argv`, only the module of the command it names is loaded (all of
 * them for `svc --help`, `svc help`, or a word that is no command, so commander's listing and
 * its "unknown command" answer stay whole).
 */
export async function buildProgram(io: CliIo, argv?: readonly string[]): Promise<Command> {
  const word = argv === undefined ? undefined : commandWord(argv);
  const named = commandModules.filter(
    (module) => word !== undefined && module.names.includes(word),
  );
  const registers = await Promise.all(
    (named.length > 0 ? named : commandModules).map((module) => module.load()),
  );
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
  for (const register of registers) register(program, io);
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
  const program = await buildProgram(io, argv);
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
