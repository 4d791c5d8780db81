import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { importBankData, importBatchAccounts } from "../banking/import/ingest.ts";
import { CliUsageError, withServices } from "./context.ts";
import type { CliIo } from "./io.ts";
import { formatTable } from "./output.ts";
import { createProgress } from "./progress.ts";

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
    .addHelpText(
      "after",
      `
A valid file is written in batches of up to ${importBatchAccounts} accounts, each batch in one short
transaction with the events it raises, so a server next to the import keeps serving and
delivering. If the import stops in the middle (a crash, Ctrl-C), the batches before it stay
written; run the same command again to complete it. Progress is shown on a terminal.`,
    )
    .requiredOption("--account <id>", "service account id")
    .argument("<file>", "JSON document (format in README.md, 'Operator ingest')")
    .action(async (file: string, options: { account: string }, cmd: Command) => {
      const document = readDocument(io, file);
      await withServices(io, cmd, async (services, out) => {
        const progress = createProgress(io);
        const result = await importBankData(services, options.account, document, {
          onProgress: (done, total) => progress.update(`imported ${done}/${total} accounts`),
        }).finally(() => progress.done());
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
