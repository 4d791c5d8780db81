import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { importBankData } from "../banking/import/ingest.ts";
import { CliUsageError, withServices } from "./context.ts";
import type { CliIo } from "./io.ts";
import { formatTable } from "./output.ts";

function readDocument(io: CliIo, file: string): unknown {
  let text: string;
  try {
    text = readFileSync(resolve(io.cwd, file), "utf8");
  } catch (error) {
    throw new CliUsageError(
      `${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? error})`,
    );
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CliUsageError(`${file}: not valid JSON (${(error as Error).message})`);
  }
}

export function registerImport(program: Command, io: CliIo): void {
  program
    .command("import")
    .description(
      "Import connections, accounts, balances and transactions from a JSON file into a service account. Idempotent: the same file again changes nothing. An invalid file is rejected whole, naming every bad record.",
    )
    .requiredOption("--account <id>", "service account id")
    .argument("<file>", "JSON document (format in README.md, 'Operator ingest')")
    .action(async (file: string, options: { account: string }, cmd: Command) => {
      const document = readDocument(io, file);
      await withServices(io, cmd, (services, out) => {
        const result = importBankData(services, options.account, document);
        out.result(result, () =>
          [
            `imported into ${result.serviceAccountId}: ${result.newTransactions} new transactions, ${result.eventsRaised} events raised`,
            formatTable(
              ["CONNECTION", "FILE ID", "STATUS", "CHANGE", "ACCOUNTS"],
              result.connections.map((c) => [
                c.id,
                c.externalId,
                c.status,
                c.created ? "created" : c.statusChanged ? "status moved" : "-",
                c.accounts
                  .map(
                    (a) =>
                      `${a.externalId}=${a.accountId}${a.newTransactions ? ` +${a.newTransactions}` : ""}`,
                  )
                  .join(", ") || "-",
              ]),
            ),
          ].join("\n"),
        );
      });
    });
}
