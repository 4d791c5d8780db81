// The dependencies the server and every CLI command share. Feature functions take the
// pieces they need from here as arguments; nothing is a module-level singleton.
import type { ProviderRegistry } from "../banking/provider.ts";
import { createProviders } from "../banking/providers/registry.ts";
import type { Config } from "../config/config.ts";
import type { Clock } from "../core/clock.ts";
import { systemClock } from "../core/clock.ts";
import { loadMasterKey } from "../crypto/master-key.ts";
import { verifyMasterKey } from "../crypto/master-key-check.ts";
import { migrateDatabase } from "../db/migrate.ts";
import { type Db, openDatabase } from "../db/open.ts";
import type { PostgresOptions } from "../db/postgres-store.ts";
import { createLogger, type Logger } from "../log/log.ts";
import { createMetrics } from "../metrics/metrics.ts";
import type { PortalDeps } from "../portal/deps.ts";
import {
  createPostgresOutboxRelay,
  createSqliteOutboxRelay,
} from "../webhooks/events/outbox-relay.ts";
import { createOutboxSignal } from "../webhooks/events/outbox-signal.ts";

/**
 * Everything built once and shared by the server and the CLI. The portal calls most features,
 * so its dependencies (portal/deps.ts) are the whole set: the bag has the portal's shape.
 */
export type Services = PortalDeps;

export interface OpenServicesOptions {
  clock?: Clock;
  log?: Logger;
  env?: Record<string, string | undefined>;
  /** PostgreSQL pool tuning beyond the configuration (tests keep their pools small). */
  postgres?: PostgresOptions;
}

/**
 * The master key may be created only while no signing secret depends on it: a missing key
 * next to existing webhook endpoints means a lost key, and a new one would silently break
 * every receiver's signature check.
 */
async function mayCreateMasterKey(db: Db): Promise<boolean> {
  const t = db.t.webhookEndpoints;
  return (await db.select({ id: t.id }).from(t).limit(1)).length === 0;
}

/** Opens the configured database (migrating it) and loads the master key. */
export async function openServices(
  config: Config,
  options: OpenServicesOptions = {},
): Promise<Services> {
  const log = options.log ?? createLogger({ level: config.logLevel });
  const database = openDatabase(config, options.postgres);
  try {
    const migration = await migrateDatabase(database);
    if (migration.applied > 0)
      log.info("database migrated", { applied: migration.applied, location: database.location });
    const masterKey = loadMasterKey(config.dataDir, {
      create: await mayCreateMasterKey(database.db),
      env: options.env,
    });
    const clock = options.clock ?? systemClock;
    await verifyMasterKey(database.db, clock, masterKey);
    let providers: ProviderRegistry | undefined;
    return {
      config,
      database,
      db: database.db,
      clock,
      log,
      masterKey,
      outbox:
        database.engine === "postgres"
          ? createOutboxSignal(
              createPostgresOutboxRelay(database, (error) =>
                log.warn("telling other instances about new deliveries failed", { error }),
              ),
              (error) => log.warn("hearing other instances' new deliveries failed", { error }),
            )
          : createOutboxSignal(createSqliteOutboxRelay(database)),
      metrics: createMetrics({ database, clock }),
      get providers() {
        providers ??= createProviders(clock, { config, masterKey: masterKey.bytes });
        return providers;
      },
    };
  } catch (error) {
    await database.close();
    throw error;
  }
}
