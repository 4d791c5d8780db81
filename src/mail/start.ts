// Starts the mail sender of `svc serve` when SMTP is configured; without it, mail stays in the
// outbox for operators. Started by the runtime, beside (not inside) the webhook dispatcher.
import type { Config } from "../config/config.ts";
import type { Clock } from "../core/clock.ts";
import type { Db } from "../db/store.ts";
import type { Logger } from "../log/log.ts";
import { createMailSender, type MailSender, smtpTransport } from "./smtp-sender.ts";

export interface MailSenderDeps {
  config: Pick<Config, "smtpUrl" | "mailFrom">;
  db: Db;
  clock: Clock;
  log: Logger;
}

export function startMailSender(deps: MailSenderDeps): MailSender | undefined {
  const { config, log } = deps;
  if (!config.smtpUrl) {
    log.info("smtpUrl is not set: e-mail is kept in the outbox for operators (svc mail list)");
    return undefined;
  }
  return createMailSender({
    db: deps.db,
    clock: deps.clock,
    log: log.child({ worker: "mail" }),
    from: config.mailFrom,
    transport: smtpTransport(config.smtpUrl),
  });
}
