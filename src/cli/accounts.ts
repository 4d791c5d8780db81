import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import {
  type AccountFlags,
  createServiceAccount,
  listServiceAccounts,
  type ServiceAccountView,
  updateServiceAccount,
} from "../accounts/service-accounts.ts";
import { accountStatuses, subscriptionStatuses } from "../db/schema.ts";
import { CliUsageError, parseBooleanFlag, parseChoice, withServices } from "./context.ts";
import type { CliIo } from "./io.ts";
import { formatTable } from "./output.ts";

function describeAccount(account: ServiceAccountView): string {
  const flags = [
    account.paymentFailed && "payment-failed",
    account.disabled && "disabled",
    account.demo && "demo",
    !account.connectEnabled && "connect-off",
  ].filter(Boolean);
  return [
    `account ${account.id}`,
    `  name          ${account.name}`,
    `  status        ${account.status}`,
    `  subscription  ${account.subscriptionStatus}`,
    `  flags         ${flags.length ? flags.join(", ") : "(none)"}`,
    `  users         ${account.users.map((u) => `${u.email}${u.isOperator ? " (operator)" : ""}`).join(", ")}`,
  ].join("\n");
}

export function registerAccounts(program: Command, io: CliIo): void {
  const accounts = program
    .command("accounts")
    .description(
      "Service accounts (tenants): create, update status, subscription and flags, list.",
    );

  accounts
    .command("create")
    .description("Create a service account with its first user.")
    .requiredOption("--email <email>", "the user's e-mail (portal sign-in)")
    .option("--name <name>", "account name (default: the e-mail)")
    .option(
      "--password-file <file>",
      "file holding the user's password; without it a one-time password is printed",
    )
    .option("--status <status>", `account status: ${accountStatuses.join(", ")}`, "sandbox")
    .option("--subscription <status>", `subscription: ${subscriptionStatuses.join(", ")}`, "none")
    .option("--operator", "the user is an operator (sees every account in the portal)")
    .action(async (options: Record<string, string | boolean | undefined>, cmd: Command) => {
      let password: string | undefined;
      if (typeof options.passwordFile === "string") {
        try {
          password = readFileSync(resolve(io.cwd, options.passwordFile), "utf8").replace(
            /\r?\n$/,
            "",
          );
        } catch (error) {
          throw new CliUsageError(
            `--password-file ${options.passwordFile}: cannot be read (${(error as NodeJS.ErrnoException).code})`,
          );
        }
      }
      const status = parseChoice("status", options.status as string, accountStatuses);
      const subscriptionStatus = parseChoice(
        "subscription",
        options.subscription as string,
        subscriptionStatuses,
      );
      await withServices(io, cmd, async (services, out) => {
        const created = await createServiceAccount(services.db, services.clock, {
          email: options.email as string,
          ...(typeof options.name === "string" ? { name: options.name } : {}),
          ...(password !== undefined ? { password } : {}),
          isOperator: options.operator === true,
          ...(status ? { status } : {}),
          ...(subscriptionStatus ? { subscriptionStatus } : {}),
        });
        out.result(
          {
            ...created.account,
            userId: created.userId,
            ...(created.oneTimePassword ? { oneTimePassword: created.oneTimePassword } : {}),
          },
          () =>
            [
              describeAccount(created.account),
              ...(created.oneTimePassword
                ? [
                    `  password      ${created.oneTimePassword}  (one-time: shown only now, must be changed at first sign-in)`,
                  ]
                : []),
            ].join("\n"),
        );
      });
    });

  accounts
    .command("update")
    .argument("<id>", "service account id")
    .description("Change an account's status, subscription or flags (entitlement follows at once).")
    .option("--status <status>", accountStatuses.join("|"))
    .option("--subscription <status>", subscriptionStatuses.join("|"))
    .option("--payment-failed <bool>", "true|false: the last renewal payment failed")
    .option("--disabled <bool>", "true|false: API keys answer 401 user_inactive")
    .option("--demo <bool>", "true|false: API keys answer 403 demo_account")
    .option("--connect <bool>", "true|false: the connect feature is available")
    .action(async (id: string, options: Record<string, string | undefined>, cmd: Command) => {
      const changes: AccountFlags = {};
      const status = parseChoice("status", options.status, accountStatuses);
      if (status) changes.status = status;
      const subscription = parseChoice("subscription", options.subscription, subscriptionStatuses);
      if (subscription) changes.subscriptionStatus = subscription;
      const booleans = [
        ["payment-failed", options.paymentFailed, "paymentFailed"],
        ["disabled", options.disabled, "disabled"],
        ["demo", options.demo, "demo"],
        ["connect", options.connect, "connectEnabled"],
      ] as const;
      for (const [flag, value, key] of booleans) {
        const parsed = parseBooleanFlag(flag, value);
        if (parsed !== undefined) changes[key] = parsed;
      }
      if (Object.keys(changes).length === 0) {
        throw new CliUsageError(
          "nothing to change: pass at least one of --status, --subscription, --payment-failed, --disabled, --demo, --connect",
        );
      }
      await withServices(io, cmd, async (services, out) => {
        const account = await updateServiceAccount(services.db, services.clock, id, changes);
        out.result(account, () => describeAccount(account));
      });
    });

  accounts
    .command("list")
    .description("List service accounts.")
    .option(
      "--search <text>",
      "only accounts whose id, name, user e-mail or connection id contains this",
    )
    .action(async (options: { search?: string }, cmd: Command) => {
      await withServices(io, cmd, async (services, out) => {
        const list = await listServiceAccounts(services.db, options.search);
        out.result(list, () =>
          formatTable(
            ["ID", "NAME", "STATUS", "SUBSCRIPTION", "FLAGS", "USERS"],
            list.map((a) => [
              a.id,
              a.name,
              a.status,
              a.subscriptionStatus,
              [
                a.paymentFailed && "payment-failed",
                a.disabled && "disabled",
                a.demo && "demo",
                !a.connectEnabled && "connect-off",
              ]
                .filter(Boolean)
                .join(",") || "-",
              a.users.map((u) => u.email).join(","),
            ]),
          ),
        );
      });
    });
}
