// Starts the mail sender of `svc serve` when SMTP is configured; without it, mail stays in the
// outbox for operators. Started by the runtime, beside (not inside) the webhook dispatcher.
import type { Services } from "../server/services.ts";
import { createMailSender, type MailSender, smtpTransport } from "./smtp-sender.ts";

export function startMailSender(services: Services): MailSender | undefined {
  const { config, log } = services;
  if (!config.smtpUrl) {
    log.info("smtpUrl is not set: e-mail is kept in the outbox for operators (svc mail list)");
    return undefined;
  }
  return createMailSender({
    db: services.db,
    clock: services.clock,
    log: log.child({ worker: "mail" }),
    from: config.mailFrom,
    transport: smtpTransport(config.smtpUrl),
  });
}
