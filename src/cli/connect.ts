// Real banks from the CLI: start an Enable Banking link (the user opens
// the printed URL; completion arrives at the running server's /connect/callback), link
// SimpleFIN with a setup token, list and remove connections, show the configured providers.
import type { Command } from "commander";
import { listOwnConnections } from "../banking/account-connections.ts";
import { completeLink, removeConnection, startLink } from "../banking/link.ts";
import {
  budgetText,
  providerCatalog,
  pulledProviderNames,
} from "../banking/providers/descriptors.ts";
import { renewSimplefin, startRenew } from "../banking/renew.ts";
import { CliUsageError, configFor, outputFor, withServices } from "./context.ts";
import type { CliIo } from "./io.ts";
import { formatTable } from "./output.ts";

function parseDays(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value))
    throw new CliUsageError(`--consent-days must be a whole number; got "${value}"`);
  return Number(value);
}

export function registerConnect(program: Command, io: CliIo): void {
  const connect = program
    .command("connect")
    .description("Connect a real bank for a service account (Enable Banking, SimpleFIN Bridge).");

  connect
    .command("enable-banking")
    .description(
      "Start linking a European bank through Enable Banking: prints the URL where the user approves at their bank. The bank sends the user back to the running server's /connect/callback, where the account's owner or an operator signs in to the portal to complete the link.",
    )
    .requiredOption("--account <id>", "service account id")
    .requiredOption("--country <cc>", "the bank's country, two letters (e.g. FI)")
    .requiredOption("--bank <name>", "the bank's name as Enable Banking lists it")
    .option("--consent-days <n>", "how long the consent lasts, 1-180 days (default 90)")
    .action(
      async (
        options: { account: string; country: string; bank: string; consentDays?: string },
        cmd: Command,
      ) => {
        const consentDays = parseDays(options.consentDays);
        await withServices(io, cmd, async (services, out) => {
          const start = await startLink(services, options.account, {
            provider: "enable_banking",
            country: options.country,
            bank: options.bank,
            ...(consentDays !== undefined ? { consentDays } : {}),
          });
          out.result(start, () =>
            start.kind === "redirect"
              ? [
                  `connection ${start.connectionId} is awaiting authorisation`,
                  `open this URL to approve at the bank (valid until ${start.stateExpiresAt.toISOString()}):`,
                  `  ${start.url}`,
                  "at the callback, the account's owner or an operator signs in to the portal to finish.",
                ].join("\n")
              : start.message,
          );
        });
      },
    );

  connect
    .command("simplefin")
    .description(
      "Link SimpleFIN Bridge with a setup token (made at the Bridge; it works once). Claims it, stores the access URL encrypted, and runs the first sync.",
    )
    .requiredOption("--account <id>", "service account id")
    .requiredOption("--setup-token <token>", "the setup token from SimpleFIN Bridge")
    .action(async (options: { account: string; setupToken: string }, cmd: Command) => {
      await withServices(io, cmd, async (services, out) => {
        const result = await completeLink(services, {
          provider: "simplefin",
          serviceAccountId: options.account,
          setupToken: options.setupToken,
        });
        out.result(result, () =>
          [
            `connection ${result.connectionId} is ${result.status}`,
            result.firstSync ? `first sync: ${result.firstSync.outcome}` : "",
          ]
            .filter(Boolean)
            .join("\n"),
        );
      });
    });

  const connections = program
    .command("connections")
    .description("A service account's bank connections.");

  connections
    .command("list")
    .description(
      "Connections of a service account: provider, bank, status, consent expiry, last sync, and the bank's notice (its message to the user, what the last sync skipped).",
    )
    .requiredOption("--account <id>", "service account id")
    .action(async (options: { account: string }, cmd: Command) => {
      await withServices(io, cmd, async (services, out) => {
        const list = await listOwnConnections(services.db, options.account);
        const rows = list.map((c) => ({
          id: c.id,
          provider: c.provider,
          institution: c.institution,
          status: c.status,
          consentExpiresAt: c.consentExpiresAt,
          lastSyncedAt: c.lastSyncedAt,
          notice: c.notice,
        }));
        out.result(rows, () =>
          formatTable(
            ["CONNECTION", "PROVIDER", "BANK", "STATUS", "CONSENT UNTIL", "LAST SYNC", "NOTICE"],
            rows.map((r) => [
              r.id,
              r.provider,
              r.institution,
              r.status,
              r.consentExpiresAt,
              r.lastSyncedAt,
              r.notice,
            ]),
          ),
        );
      });
    });

  connections
    .command("renew")
    .description(
      "Renew a real-bank connection's consent, keeping its connection, account and transaction ids (also for expired and suspended connections). Enable Banking: prints the URL where the user approves again; the bank sends them to the running server's /connect/callback, where the account's owner or an operator signs in to finish. SimpleFIN: pass a new setup token.",
    )
    .argument("<id>", "connection id")
    .option("--setup-token <token>", "SimpleFIN: a new setup token from the Bridge")
    .action(async (id: string, options: { setupToken?: string }, cmd: Command) => {
      await withServices(io, cmd, async (services, out) => {
        if (options.setupToken !== undefined) {
          const result = await renewSimplefin(services, id, options.setupToken);
          out.result(result, () =>
            [
              `connection ${result.connectionId} is ${result.status}`,
              result.firstSync ? `first sync: ${result.firstSync.outcome}` : "",
            ]
              .filter(Boolean)
              .join("\n"),
          );
          return;
        }
        const start = await startRenew(services, id);
        out.result(start, () =>
          start.kind === "redirect"
            ? [
                `open this URL to renew the consent at the bank (valid until ${start.stateExpiresAt.toISOString()}):`,
                `  ${start.url}`,
                "then sign in to the portal as the account's owner or an operator to finish.",
              ].join("\n")
            : start.message,
        );
      });
    });

  connections
    .command("remove")
    .description(
      "Remove a connection with its accounts and data; an Enable Banking session is ended at the provider first.",
    )
    .argument("<id>", "connection id")
    .action(async (id: string, _options: unknown, cmd: Command) => {
      await withServices(io, cmd, async (services, out) => {
        const result = await removeConnection(services, id);
        out.result(
          { id, removed: true, ...result },
          () =>
            `connection ${id} removed${result.providerSessionDeleted ? " (session ended at Enable Banking)" : ""}`,
        );
      });
    });

  program
    .command("providers")
    .description("Which bank providers this instance can use, and their request budgets.")
    .action(async (_options: unknown, cmd: Command) => {
      const config = configFor(io, cmd);
      const rows = pulledProviderNames.map((name) => ({
        name,
        configured: providerCatalog[name].configured(config),
        budget: budgetText(name),
      }));
      outputFor(io, cmd).result(rows, () =>
        formatTable(
          ["PROVIDER", "CONFIGURED", "BUDGET"],
          rows.map((r) => [r.name, r.configured ? "yes" : "no", r.budget]),
        ),
      );
    });
}
