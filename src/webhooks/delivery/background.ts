// The background work of `svc serve` for webhooks: the dispatcher. The mail sender that delivers
// its disabled-endpoint notices is started by the runtime (src/mail/start.ts) and woken here.
import type { Services } from "../../server/services.ts";
import { createDispatcher, type Dispatcher } from "./dispatcher.ts";
import { senderFromConfig } from "./sender.ts";

/** Starts the dispatcher; `onMailQueued` wakes the mail sender when a notice was queued. */
export function startWebhookDispatcher(
  services: Services,
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
