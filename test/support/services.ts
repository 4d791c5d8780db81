import { type Config, loadConfig } from "../../src/config/config.ts";
import type { Clock } from "../../src/core/clock.ts";
import { type Logger, silentLogger } from "../../src/log/log.ts";
import { openServices, type Services } from "../../src/server/services.ts";
import { createTestDatabase, registerEngineEnv, testEngine, testPoolOptions } from "./engine.ts";
import { createFakeClock } from "./fake-clock.ts";
import { makeTempDir } from "./temp.ts";

/** A fixed master key for tests (64 hex characters), so derived secrets are reproducible. */
export const testMasterKeyHex = "0f".repeat(32);

export interface TestServicesOptions {
  clock?: Clock;
  log?: Logger;
  config?: Partial<Config>;
}

/**
 * Fresh data dir and database (migrated) on this run's engine (support/engine.ts), fake clock by
 * default, nothing logged.
 */
export async function createTestServices(options: TestServicesOptions = {}): Promise<Services> {
  const dataDir = makeTempDir("svc-data");
  const testDatabase = testEngine === "postgres" ? await createTestDatabase() : undefined;
  if (testDatabase) registerEngineEnv(dataDir, { SVC_DATABASE_URL: testDatabase.url });
  const config: Config = {
    ...loadConfig({ env: {}, cwd: dataDir, flags: { dataDir } }),
    unsafeAllowPrivateTargets: true,
    ...(testDatabase ? { databaseUrl: testDatabase.url } : {}),
    ...options.config,
  };
  const services = await openServices(config, {
    clock: options.clock ?? createFakeClock(),
    log: options.log ?? silentLogger,
    env: { SVC_MASTER_KEY: testMasterKeyHex },
    postgres: testPoolOptions,
  });
  return services;
}
