import type { Command } from "commander";
import { ensureFirstOperator } from "../accounts/bootstrap.ts";
import type { CreatedAccount } from "../accounts/service-accounts.ts";
import { type ConfigKey, describeConfigKeys, processGivenSettings } from "../config/config.ts";
import { writeRunningServer } from "../config/running-server.ts";
import { startService } from "../server/runtime.ts";
import type { Services } from "../server/services.ts";
import { withServices } from "./context.ts";
import type { CliIo } from "./io.ts";
import {
  processIndexEnv,
  stopWhenOrphaned,
  superviseProcesses,
  supervisorPidEnv,
} from "./serve-processes.ts";

/** Config keys that `serve` also takes as flags (data dir and config file are global). */
const serveFlagKeys = describeConfigKeys().filter((spec) => spec.key !== "dataDir");

function camel(flag: string): string {
  return flag.replace(/^--/, "").replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

function announceFirstOperator(io: CliIo, baseUrl: string, created: CreatedAccount): void {
  const user = created.account.users[0];
  io.stdout(
    [
      "",
      "First start: an operator account was created for the portal.",
      `  sign in at  ${baseUrl}/`,
      `  e-mail      ${user?.email}`,
      `  password    ${created.oneTimePassword}`,
      "This password is shown only now and must be changed at the first sign-in.",
      "",
    ].join("\n"),
  );
}

/**
 * The settings this server was given outside svc.json, for the other commands
 * (config/running-server.ts).
 */
function shareSettings(services: Services): () => void {
  const { settings, origins } = processGivenSettings(services.config);
  try {
    return writeRunningServer(services.config.dataDir, settings, origins, services.clock.now());
  } catch (error) {
    services.log.warn(
      "could not write the running-server file; other commands will not see this server's flags",
      {
        error: (error as Error).message,
      },
    );
    return () => {};
  }
}

export function registerServe(program: Command, io: CliIo): void {
  const command = program
    .command("serve")
    .description(
      "Run the API, the portal and the webhook dispatcher until stopped (SIGTERM/SIGINT).",
    )
    .addHelpText(
      "after",
      `
With no set-up at all it serves http://localhost:8080 from ./data, creating the database,
the master key and a first operator (its e-mail and one-time password are printed once).
Every flag can also be set as an SVC_* environment variable or in <data dir>/svc.json;
flags win over the environment, which wins over the file.`,
    );
  addServeFlags(command);
  command.action(async (options: Record<string, string | boolean | undefined>, cmd: Command) => {
    await runServe(io, cmd, serveFlags(options));
  });
}

/** The configuration keys `serve` (and `dev`) take as flags. */
export function addServeFlags(command: Command): void {
  for (const spec of serveFlagKeys) {
    const takesValue = spec.key !== "unsafeAllowPrivateTargets";
    const label = takesValue ? `${spec.flag} <value>` : spec.flag;
    const defaultText = spec.default === undefined ? "" : `, default ${spec.default}`;
    command.option(label, `${spec.help} [${spec.env}${defaultText}]`);
  }
}

export function serveFlags(
  options: Record<string, string | boolean | undefined>,
): Partial<Record<ConfigKey, string | boolean>> {
  const flags: Partial<Record<ConfigKey, string | boolean>> = {};
  for (const spec of serveFlagKeys) {
    const value = options[camel(spec.flag)];
    if (value !== undefined) flags[spec.key] = value;
  }
  return flags;
}

/**
 * `svc serve` until a stop signal. `onListening` runs once the server answers (dev mode prints
 * its banner there).
 */
export async function runServe(
  io: CliIo,
  cmd: Command,
  flags: Partial<Record<ConfigKey, string | boolean>>,
  options: { onListening?: (services: Services, url: URL) => void } = {},
): Promise<void> {
  await withServices(
    io,
    cmd,
    async (services) => {
      // Listening for SIGTERM/SIGINT before the port opens: a supervisor that stops the
      // service as soon as /healthz answers still gets a graceful stop.
      const stopSignal = io.untilStopSignal();
      if (services.config.workers > 1 && io.env[processIndexEnv] === undefined) {
        // The database is migrated and the first operator exists before any serving process
        // starts.
        const created = await ensureFirstOperator(services.db, services.clock);
        if (created) announceFirstOperator(io, services.config.baseUrl, created);
        const workers = superviseProcesses(services.config.workers, {
          log: services.log,
          env: io.env,
        });
        const forget = shareSettings(services);
        const signal = await stopSignal;
        forget();
        services.log.info("signal received; stopping the workers", { signal });
        await workers.stop(signal as NodeJS.Signals);
        return;
      }
      // A serving process whose supervisor is gone (killed with SIGKILL) stops gracefully by
      // itself.
      const supervisorPid = Number(io.env[supervisorPidEnv]);
      const orphanWatch =
        io.env[processIndexEnv] === undefined || !Number.isInteger(supervisorPid)
          ? undefined
          : stopWhenOrphaned(supervisorPid);
      const running = await startService(services, {
        announceFirstOperator: (created) =>
          announceFirstOperator(io, services.config.baseUrl, created),
      });
      // A supervisor's serving processes share its file; a single process writes its own.
      const forget = io.env[processIndexEnv] === undefined ? shareSettings(services) : () => {};
      options.onListening?.(services, running.url);
      const signal = await stopSignal;
      forget();
      clearInterval(orphanWatch);
      services.log.info("signal received", { signal });
      await running.stop();
    },
    { flags, createsDataDir: true, ownSettings: true },
  );
}
