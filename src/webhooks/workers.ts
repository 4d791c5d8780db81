// The background work of `svc serve` for webhooks: the dispatcher, plus the mail sender that
// delivers its disabled-endpoint notices when SMTP is configured.
import { createMailWorker, type MailWorker, smtpTransport } from "../mail/smtp-worker.ts";
import type { Worker } from "../runtime.ts";
import type { Services } from "../services.ts";
import { createDispatcher } from "./dispatcher.ts";
import { senderFromConfig } from "./sender.ts";

export function startMailWorker(services: Services): MailWorker | undefined {
  const { config, log } = services;
  if (!config.smtpUrl) {
    log.info("smtpUrl is not set: e-mail is kept in the outbox for operators (svc mail list)");
    return undefined;
  }
  return createMailWorker({
    db: services.db,
    clock: services.clock,
    log: log.child({ worker: "mail" }),
    from: config.mailFrom,
    transport: smtpTransport(config.smtpUrl),
  });
}

/** Starts the mail sender (when configured) and the dispatcher; stop them in reverse order. */
export function startWebhookWorkers(services: Services): Worker[] {
  const { config, clock } = services;
  const log = services.log.child({ worker: "webhooks" });
  const mail = startMailWorker(services);
  const dispatcher = createDispatcher({
    db: services.db,
    clock,
    log,
    masterKey: services.masterKey,
    sender: senderFromConfig(config, clock, { log }),
    outbox: services.outbox,
    concurrency: config.deliveryConcurrency,
    endpointConcurrency: config.endpointConcurrency,
    onMailQueued: () => mail?.wake(),
    metrics: services.metrics,
  });
  dispatcher.start();
  return mail ? [mail, dispatcher] : [dispatcher];
}
