// `svc mail list`: the mail outbox, which holds every e-mail the service meant to send
// (sent over SMTP when smtpUrl is set; otherwise only kept here for the operator).
import type { Command } from "commander";
import { listMail } from "../mail/outbox.ts";
import { withServices } from "./context.ts";
import { parseLimit } from "./deliveries.ts";
import type { CliIo } from "./io.ts";

export function registerMail(program: Command, io: CliIo): void {
  const group = program
    .command("mail")
    .description(
      "The mail outbox: e-mails to account owners (e.g. endpoint disabled), sent or not.",
    );
  group
    .command("list")
    .description("List outbox e-mails, newest first.")
    .option("--account <id>", "only this service account's mail")
    .option("--unsent", "only mail not sent yet (or never: no smtpUrl configured)")
    .option("--limit <n>", "at most this many (default 100, max 1000)")
    .action(
      async (options: { account?: string; unsent?: boolean; limit?: string }, cmd: Command) => {
        const limit = parseLimit(options.limit, 1000);
        await withServices(io, cmd, async (services, out) => {
          const list = await listMail(services.db, {
            ...(options.account ? { serviceAccountId: options.account } : {}),
            unsentOnly: options.unsent === true,
            ...(limit ? { limit } : {}),
          });
          out.result(list, () =>
            list.length === 0
              ? "(no mail)"
              : list
                  .map((m) =>
                    [
                      `mail ${m.id}  ${m.sentAt ? `sent ${m.sentAt}` : `not sent (${m.attempts} attempts${m.lastError ? `, last error: ${m.lastError}` : ""})`}`,
                      `  to       ${m.to}`,
                      `  subject  ${m.subject}`,
                      `  created  ${m.createdAt}`,
                      "",
                      ...m.body.split("\n").map((line) => `  ${line}`),
                    ].join("\n"),
                  )
                  .join("\n\n"),
          );
        });
      },
    );
}
