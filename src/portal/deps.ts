// What the portal's routes need: the features they call take their own narrow dependencies
// from it (sync, links, endpoints, keys, deliveries), so it holds what those need together.
// The composition root passes its services, which have this shape.
import type { ProviderRegistry } from "../banking/provider.ts";
import type { Config } from "../config/config.ts";
import type { Clock } from "../core/clock.ts";
import type { MasterKey } from "../crypto/master-key.ts";
import type { AnyDatabase, Db } from "../db/open.ts";
import type { Logger } from "../log/log.ts";
import type { Metrics } from "../metrics/metrics.ts";
import type { OutboxSignal } from "../webhooks/events/outbox-signal.ts";

export interface PortalDeps {
  config: Config;
  database: AnyDatabase;
  db: Db;
  clock: Clock;
  log: Logger;
  masterKey: MasterKey;
  outbox: OutboxSignal;
  metrics: Metrics;
  readonly providers: ProviderRegistry;
}
