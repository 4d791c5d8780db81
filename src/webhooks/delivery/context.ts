// What the webhook feature functions need, taken from the services or given by tests (a resolver
// that answers with chosen addresses, a sender with a short timeout).

import type { Config } from "../../config/config.ts";
import type { Clock } from "../../core/clock.ts";
import type { MasterKey } from "../../crypto/master-key.ts";
import type { Db } from "../../db/store.ts";
import type { Logger } from "../../log/log.ts";
import { type Resolver, systemResolver } from "../../net/resolver.ts";
import { type Sender, senderFromConfig } from "./sender.ts";

export interface WebhookContext {
  db: Db;
  clock: Clock;
  config: Config;
  masterKey: MasterKey;
  log: Logger;
  resolve: Resolver;
  /** Created on first use (test and verification sends); close() releases its connections. */
  readonly sender: Sender;
  close(): void;
}

/** What a context is built from: the process's shared pieces (callers pass their services). */
export type WebhookContextDeps = Pick<
  WebhookContext,
  "db" | "clock" | "config" | "masterKey" | "log"
>;

export function webhookContext(
  services: WebhookContextDeps,
  overrides: { resolve?: Resolver; sender?: Sender } = {},
): WebhookContext {
  const resolve = overrides.resolve ?? systemResolver;
  let sender = overrides.sender;
  let created: Sender | undefined;
  return {
    db: services.db,
    clock: services.clock,
    config: services.config,
    masterKey: services.masterKey,
    log: services.log,
    resolve,
    get sender() {
      if (!sender) {
        created = senderFromConfig(services.config, services.clock, { resolve, log: services.log });
        sender = created;
      }
      return sender;
    },
    close() {
      created?.close();
    },
  };
}

/**
 * Runs `fn` with a webhook context and releases the sender's connections afterwards. Test and
 * verification sends are rare (10 per minute per account), so the CLI and the portal open a
 * context per action instead of keeping connections pooled.
 */
export async function withWebhookContext<T>(
  services: WebhookContextDeps,
  fn: (ctx: WebhookContext) => Promise<T> | T,
): Promise<T> {
  const ctx = webhookContext(services);
  try {
    return await fn(ctx);
  } finally {
    ctx.close();
  }
}
