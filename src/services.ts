// The dependencies the server and every CLI command share. Feature functions take the
// pieces they need from here as arguments; nothing is a module-level singleton.
import type { Clock } from "./clock.ts";
import { systemClock } from "./clock.ts";
import type { Config } from "./config.ts";
import { loadMasterKey, type MasterKey } from "./crypto/master-key.ts";
import { migrateDatabase } from "./db/migrate.ts";
import { type Database, type Db, databasePath, openDatabase } from "./db/open.ts";
import { createLogger, type Logger } from "./log.ts";
import { createMetrics, type Metrics } from "./metrics/metrics.ts";
import { createOutboxSignal, type OutboxSignal } from "./webhooks/outbox-signal.ts";

export interface Services {
  config: Config;
  database: Database;
  db: Db;
  clock: Clock;
  log: Logger;
  masterKey: MasterKey;
  /** Notified after deliveries are committed, so the dispatcher sends at once. */
  outbox: OutboxSignal;
  /** This process's Prometheus registry and instruments (served at /metrics by `svc serve`). */
  metrics: Metrics;
}

export interface OpenServicesOptions {
  clock?: Clock;
  log?: Logger;
  env?: Record<string, string | undefined>;
}

/**
 * The master key may be created only while no signing secret depends on it: a missing key
 * next to existing webhook endpoints means a lost key, and a new one would silently break
 * every receiver's signature check.
 */
function mayCreateMasterKey(database: Database): boolean {
  return !database.sqlite.query("SELECT 1 FROM webhook_endpoints LIMIT 1").get();
}

/** Opens the database (migrating it) and loads the master key. */
export function openServices(config: Config, options: OpenServicesOptions = {}): Services {
  const log = options.log ?? createLogger({ level: config.logLevel });
  const database = openDatabase(databasePath(config.dataDir));
  try {
    const migration = migrateDatabase(database);
    if (migration.applied > 0)
      log.info("database migrated", { applied: migration.applied, path: database.path });
    const masterKey = loadMasterKey(config.dataDir, {
      create: mayCreateMasterKey(database),
      ...(options.env ? { env: options.env } : {}),
    });
    const clock = options.clock ?? systemClock;
    return {
      config,
      database,
      db: database.db,
      clock,
      log,
      masterKey,
      outbox: createOutboxSignal(),
      metrics: createMetrics({ database, clock }),
    };
  } catch (error) {
    database.close();
    throw error;
  }
}
