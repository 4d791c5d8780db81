import type { Command } from "commander";
import { defaultEventLimit, listAccountEvents, maxEventLimit } from "../banking/event-log.ts";
import { eventTypes } from "../webhooks/events/types.ts";
import { CliUsageError, parseChoice, withServices } from "./context.ts";
import type { CliIo } from "./io.ts";
import { formatTable } from "./output.ts";

function parseLimit(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const limit = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(limit) || limit < 1 || limit > maxEventLimit)
    throw new CliUsageError(
      `--limit must be a whole number from 1 to ${maxEventLimit}; got "${value}"`,
    );
  return limit;
}

export function registerEvents(program: Command, io: CliIo): void {
  const group = program.command("events").description("Events raised for an account.");
  group
    .command("list")
    .description(
      "List a service account's events, newest first, with the envelope that is signed and sent.",
    )
    .requiredOption("--account <id>", "service account id")
    .option("--type <type>", eventTypes.join("|"))
    .option("--limit <n>", `how many (1-${maxEventLimit}, default ${defaultEventLimit})`)
    .action(async (options: { account: string; type?: string; limit?: string }, cmd: Command) => {
      const type = parseChoice("type", options.type, eventTypes);
      const limit = parseLimit(options.limit);
      await withServices(io, cmd, async (services, out) => {
        const list = await listAccountEvents(services.db, options.account, {
          ...(type ? { type } : {}),
          ...(limit !== undefined ? { limit } : {}),
        });
        out.result(list, () =>
          formatTable(
            ["ID", "TYPE", "CREATED", "DATA"],
            list.map((e) => [e.id, e.type, e.created_at, JSON.stringify(e.envelope.data)]),
          ),
        );
      });
    });
}
