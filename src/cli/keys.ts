import type { Command } from "commander";
import { type ApiKeyView, createApiKey, listApiKeys, revokeApiKey } from "../keys/api-keys.ts";
import { isWellFormedApiKey } from "../keys/format.ts";
import { CliUsageError, withServices } from "./context.ts";
import type { CliIo } from "./io.ts";
import { formatTable } from "./output.ts";

function describeKey(key: ApiKeyView): string {
  return [
    `key ${key.id}`,
    `  name       ${key.name}`,
    `  prefix     ${key.prefix}`,
    `  account    ${key.serviceAccountId}`,
    `  created    ${key.createdAt}`,
    `  last used  ${key.lastUsedAt ?? "never"}`,
    `  status     ${key.revokedAt ? `revoked at ${key.revokedAt}` : "active"}`,
  ].join("\n");
}

export function registerKeys(program: Command, io: CliIo): void {
  const keys = program
    .command("keys")
    .description("API keys of a service account: create (shown once), list, revoke.");

  keys
    .command("create")
    .description(
      "Create an API key. The full key is printed once and never again (only its SHA-256 is stored).",
    )
    .requiredOption("--account <id>", "service account id (see `svc accounts list`)")
    .option("--name <name>", "a name to tell keys apart, e.g. the environment or service using it")
    .action(async (options: { account: string; name?: string }, cmd: Command) => {
      await withServices(io, cmd, async (services, out) => {
        const created = await createApiKey(services.db, services.clock, {
          serviceAccountId: options.account,
          ...(options.name !== undefined ? { name: options.name } : {}),
        });
        out.result({ ...created.apiKey, key: created.key }, () =>
          [
            describeKey(created.apiKey),
            "",
            `  ${created.key}`,
            "",
            "This is the only time the full key is shown. Store it in your secret manager now;",
            "send it as `Authorization: Bearer <key>`. If it leaks, revoke it: svc keys revoke <key id>",
          ].join("\n"),
        );
      });
    });

  keys
    .command("list")
    .description(
      "List an account's API keys, newest first; revoked keys stay listed with their date.",
    )
    .requiredOption("--account <id>", "service account id")
    .action(async (options: { account: string }, cmd: Command) => {
      await withServices(io, cmd, async (services, out) => {
        const list = await listApiKeys(services.db, options.account);
        out.result(list, () =>
          formatTable(
            ["ID", "NAME", "PREFIX", "CREATED", "LAST USED", "REVOKED"],
            list.map((k) => [k.id, k.name, k.prefix, k.createdAt, k.lastUsedAt, k.revokedAt]),
          ),
        );
      });
    });

  keys
    .command("revoke")
    .argument("<key-id>", "the key's id (from `svc keys list`), not the key itself")
    .description(
      "Revoke an API key. The next request with it gets 401 invalid_api_key, also on a running server.",
    )
    .action(async (keyId: string, _options: unknown, cmd: Command) => {
      if (isWellFormedApiKey(keyId)) {
        throw new CliUsageError(
          "pass the key's id (a UUID, shown by `svc keys list`), not the key itself",
        );
      }
      await withServices(io, cmd, async (services, out) => {
        const revoked = await revokeApiKey(services.db, services.clock, keyId);
        out.result(revoked.apiKey, () =>
          revoked.alreadyRevoked
            ? `key ${keyId} was already revoked at ${revoked.apiKey.revokedAt}`
            : `revoked key ${keyId} (${revoked.apiKey.prefix}...) at ${revoked.apiKey.revokedAt}`,
        );
      });
    });
}
