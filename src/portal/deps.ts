// What the portal's routes need: the features they call take their own narrow dependencies
// from it (sync, links, endpoints, keys, deliveries), so it holds what those need together.
// The composition root's services have exactly this shape (server/services.ts).
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
  /** Notified after deliveries are committed, so the dispatcher sends at once. */
  outbox: OutboxSignal;
  /** This process's Prometheus registry and instruments (served at /metrics by `svc serve`). */
  metrics: Metrics;
  /**
   * The bank providers syncs pull from, built once from the provider catalog on first use (so a
   * command that syncs nothing never reads the providers' CA file).
   */
  readonly providers: ProviderRegistry;
}
