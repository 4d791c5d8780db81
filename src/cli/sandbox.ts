import type { Command } from "commander";
import type { ConnectionView } from "../banking/connections.ts";
import { connectSandbox, maxSandboxSeed, setSandboxStatus } from "../banking/sandbox/connect.ts";
import {
  type SimulationKind,
  simulateActivity,
  simulationKinds,
} from "../banking/sandbox/simulate.ts";
import { type ConnectionStatus, connectionStatuses } from "../db/schema.ts";
import { CliUsageError, parseChoice, withServices } from "./context.ts";
import type { CliIo } from "./io.ts";
import { formatTable } from "./output.ts";

function describeConnection(connection: ConnectionView): string {
  return [
    `connection ${connection.id}`,
    `  provider     ${connection.provider} (${connection.institution})`,
    `  status       ${connection.status}${connection.error ? ` (${connection.error})` : ""}`,
    `  last synced  ${connection.lastSyncedAt ?? "never"}`,
    formatTable(
      ["ACCOUNT", "NAME", "TYPE", "CURRENCY"],
      connection.accounts.map((a) => [a.id, a.name, a.type, a.currency]),
    )
      .split("\n")
      .map((line) => `  ${line}`)
      .join("\n"),
  ].join("\n");
}

function parseSeed(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seed = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(seed) || seed > maxSandboxSeed)
    throw new CliUsageError(
      `--seed must be a whole number from 0 to ${maxSandboxSeed}; got "${value}"`,
    );
  return seed;
}

export function registerSandbox(program: Command, io: CliIo): void {
  const sandbox = program
    .command("sandbox")
    .description("The built-in sandbox bank: connect it, drive a connection through every status.");

  sandbox
    .command("connect")
    .description(
      "Connect the sandbox bank for a service account: the connection goes initiated -> awaiting_auth -> linked and carries 2-3 accounts with 90 days of history. Run `svc sync` to fetch the data.",
    )
    .requiredOption("--account <id>", "service account id")
    .option(
      "--seed <n>",
      `seed of the simulated customer (0-${maxSandboxSeed}); the same seed gives the same accounts and history (default: random)`,
    )
    .action(async (options: { account: string; seed?: string }, cmd: Command) => {
      const seed = parseSeed(options.seed);
      await withServices(io, cmd, async (services, out) => {
        const connection = await connectSandbox(services, {
          serviceAccountId: options.account,
          ...(seed !== undefined ? { seed } : {}),
        });
        out.result(connection, () =>
          [
            describeConnection(connection),
            `  seed         ${connection.seed}`,
            `next: svc sync --connection ${connection.id}`,
          ].join("\n"),
        );
      });
    });

  sandbox
    .command("trigger")
    .description(
      "Simulate activity at the sandbox bank now and sync, so an account event happens on demand: transactions (account.transactions.available and account.balance.updated), booking (a pending card payment books), balance (account.balance.updated alone), status (connection.status.changed).",
    )
    .argument("<kind>", simulationKinds.join("|"))
    .requiredOption("--connection <id>", "sandbox connection id")
    .option("--account <id>", "bank account of the connection (default: its current account)")
    .option(
      "--status <status>",
      `for status: the status to move to (${connectionStatuses.join(", ")}; default linked <-> awaiting_auth)`,
    )
    .action(
      async (
        kind: string,
        options: { connection: string; account?: string; status?: string },
        cmd: Command,
      ) => {
        const chosen = parseChoice("kind", kind, simulationKinds) as SimulationKind;
        const status = parseChoice("status", options.status, connectionStatuses);
        if (status !== undefined && chosen !== "status")
          throw new CliUsageError("--status applies only to the kind status");
        await withServices(io, cmd, async (services, out) => {
          const result = await simulateActivity(services, {
            connectionId: options.connection,
            kind: chosen,
            trigger: "cli",
            ...(options.account !== undefined ? { accountId: options.account } : {}),
            ...(status !== undefined ? { status } : {}),
          });
          out.result(result, () =>
            [
              `simulated: ${result.summary}`,
              result.sync
                ? `sync ${result.sync.outcome}${"eventsRaised" in result.sync ? `, ${result.sync.eventsRaised} event(s) raised` : ""}`
                : "",
              result.expectedEvents.length > 0
                ? `events: ${result.expectedEvents.join(", ")} (a running svc serve delivers them)`
                : "no event raised",
            ]
              .filter(Boolean)
              .join("\n"),
          );
        });
      },
    );

  sandbox
    .command("set-status")
    .description(
      "Move a sandbox connection to a status, raising connection.status.changed when it moves. In `error` every sync fails until it is set back to linked.",
    )
    .requiredOption("--connection <id>", "sandbox connection id")
    .argument("<status>", connectionStatuses.join("|"))
    .option("--message <text>", "the error message operators see (status error only)")
    .action(
      async (status: string, options: { connection: string; message?: string }, cmd: Command) => {
        if (!(connectionStatuses as readonly string[]).includes(status)) {
          throw new CliUsageError(
            `status must be one of ${connectionStatuses.join(", ")}; got "${status}"`,
          );
        }
        const target = status as ConnectionStatus;
        if (options.message !== undefined && target !== "error")
          throw new CliUsageError("--message applies only to the status error");
        await withServices(io, cmd, async (services, out) => {
          const result = await setSandboxStatus(
            services,
            options.connection,
            target,
            options.message,
          );
          out.result(result, () =>
            [
              result.changed
                ? `status moved to ${target}; connection.status.changed raised`
                : `status was already ${target}; no event raised`,
              describeConnection(result.connection),
            ].join("\n"),
          );
        });
      },
    );
}
