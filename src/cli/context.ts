import { existsSync } from "node:fs";
import type { Command } from "commander";
import { refusePostgresBackupWithoutUrl } from "../backup/restore-steps.ts";
import { type Config, type ConfigKey, loadConfig } from "../config/config.ts";
import { createLogger } from "../log/log.ts";
import { openServices, type Services } from "../server/services.ts";
import type { CliIo } from "./io.ts";
import { createOutput, type Output } from "./output.ts";

/** A mistake in how a command was called; exits with status 2. */
export class CliUsageError extends Error {
  override name = "CliUsageError";
}

/**
 * The command did its work but the outcome is a failure (e.g. the receiver refused a test send):
 * the result is printed as usual, then this one line goes to stderr and the exit status is 1.
 */
export class CliFailure extends Error {
  override name = "CliFailure";
}

export interface GlobalOptions {
  dataDir?: string;
  config?: string;
  json?: boolean;
}

export function globalOptions(command: Command): GlobalOptions {
  return command.optsWithGlobals() as GlobalOptions;
}

export function outputFor(io: CliIo, command: Command): Output {
  return createOutput(io, Boolean(globalOptions(command).json));
}

/**
 * Loads the configuration for a command: global --data-dir/--config plus the command's own
 * flags, over the settings a running `svc serve` on the same data dir was given (except for
 * `serve` itself, `ownSettings`).
 */
export function configFor(
  io: CliIo,
  command: Command,
  flags: Partial<Record<ConfigKey, string | number | boolean>> = {},
  options: { ownSettings?: boolean } = {},
): Config {
  const global = globalOptions(command);
  return loadConfig({
    env: io.env,
    cwd: io.cwd,
    followRunningServer: !options.ownSettings,
    flags: { ...flags, ...(global.dataDir !== undefined ? { dataDir: global.dataDir } : {}) },
    ...(global.config !== undefined ? { configFile: global.config } : {}),
  });
}

/**
 * Runs `fn` with the shared services (database migrated, master key loaded) and closes them
 * afterwards. Commands are thin: they parse, call one feature function, and print.
 */
export async function withServices<T>(
  io: CliIo,
  command: Command,
  fn: (services: Services, out: Output) => Promise<T> | T,
  options: {
    flags?: Partial<Record<ConfigKey, string | number | boolean>>;
    /** Only `serve` and `migrate` (and `setup`, on its own path) may create the data dir. */
    createsDataDir?: boolean;
    /** `serve`: its settings are its own, not those of another server on the data dir. */
    ownSettings?: boolean;
  } = {},
): Promise<T> {
  const config = configFor(io, command, options.flags, {
    ...(options.ownSettings ? { ownSettings: true } : {}),
  });
  if (!options.createsDataDir) requireDataDir(config, io.env);
  else refusePostgresBackupWithoutUrl(config);
  const services = await openServices(config, {
    env: io.env,
    log: createLogger({
      level: config.logLevel,
      ...(io.logSink
        ? { write: io.logSink.write, flush: io.logSink.flush }
        : { write: (line: string) => io.stderr(`${line}\n`) }),
    }),
    clock: io.clock,
  });
  try {
    return await fn(services, outputFor(io, command));
  } finally {
    await services.database.close();
  }
}

/** A command other than serve, setup or migrate run where there is no data dir (exit 78). */
export class DataDirMissing extends Error {
  override name = "DataDirMissing";
}

/**
 * Every command but serve, setup and migrate works on an existing install: a typo in --data-dir
 * or a run from the wrong directory must not leave a new, empty data dir behind. With PostgreSQL
 * (`databaseUrl`) the data is in the database and the dir holds only the master key, so it is not
 * needed when SVC_MASTER_KEY gives the key.
 */
function requireDataDir(config: Config, env: Record<string, string | undefined>): void {
  if (existsSync(config.dataDir)) return;
  if (config.databaseUrl && env.SVC_MASTER_KEY) return;
  throw new DataDirMissing(
    `no data dir at ${config.dataDir}${config.databaseUrl ? " (it holds the master key; or set SVC_MASTER_KEY)" : ""}: create it with \`svc setup\` (or \`svc migrate --data-dir ${config.dataDir}\`), or point --data-dir / SVC_DATA_DIR at an existing one`,
  );
}

/** Parses a --flag value as true/false. */
export function parseBooleanFlag(name: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (["true", "1", "yes"].includes(value)) return true;
  if (["false", "0", "no"].includes(value)) return false;
  throw new CliUsageError(`--${name} must be true or false, not "${value}"`);
}

/** Checks a --flag value against a fixed list of choices. */
export function parseChoice<T extends string>(
  name: string,
  value: string | undefined,
  choices: readonly T[],
): T | undefined {
  if (value === undefined) return undefined;
  if ((choices as readonly string[]).includes(value)) return value as T;
  throw new CliUsageError(`--${name} must be one of ${choices.join(", ")}; got "${value}"`);
}
