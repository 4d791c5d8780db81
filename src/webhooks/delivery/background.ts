// The background work of `svc serve` for webhooks: the dispatcher. The mail sender that delivers
// its disabled-endpoint notices is started by the runtime (src/mail/start.ts) and woken here.
import type { Config } from "../../config/config.ts";
import type { OutboxSignal } from "../events/outbox-signal.ts";
import { createDispatcher, type Dispatcher, type DispatcherOptions } from "./dispatcher.ts";
import { senderFromConfig } from "./sender.ts";

/** The dispatcher's shared pieces, and the settings its caps and its sender are made from. */
export interface WebhookDispatcherDeps
  extends Pick<DispatcherOptions, "db" | "clock" | "log" | "masterKey" | "metrics"> {
  config: Config;
  outbox: OutboxSignal;
}

/** Starts the dispatcher; `onMailQueued` wakes the mail sender when a notice was queued. */
export function startWebhookDispatcher(
  services: WebhookDispatcherDeps,
  options: { onMailQueued?: () => void; processId?: string } = {},
): Dispatcher {
  const { config, clock } = services;
  const log = services.log.child({ worker: "webhooks" });
  const dispatcher = createDispatcher({
    db: services.db,
    clock,
    log,
    masterKey: services.masterKey,
    sender: senderFromConfig(config, clock, { log }),
    outbox: services.outbox,
    concurrency: config.deliveryConcurrency,
    endpointConcurrency: config.endpointConcurrency,
    onMailQueued: options.onMailQueued,
    processId: options.processId,
    metrics: services.metrics,
  });
  dispatcher.start();
  return dispatcher;
}
