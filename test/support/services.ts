import type { Clock } from "../../src/clock.ts";
import { type Config, loadConfig } from "../../src/config.ts";
import { type Logger, silentLogger } from "../../src/log.ts";
import { openServices, type Services } from "../../src/services.ts";
import { createFakeClock } from "./fake-clock.ts";
import { makeTempDir } from "./temp.ts";

/** A fixed master key for tests (64 hex characters), so derived secrets are reproducible. */
export const testMasterKeyHex = "0f".repeat(32);

export interface TestServicesOptions {
  clock?: Clock;
  log?: Logger;
  config?: Partial<Config>;
}

/** Fresh data dir and database (migrated), fake clock by default, nothing logged. */
export function createTestServices(options: TestServicesOptions = {}): Services {
  const dataDir = makeTempDir("svc-data");
  const config: Config = {
    ...loadConfig({ env: {}, cwd: dataDir, flags: { dataDir } }),
    unsafeAllowPrivateTargets: true,
    ...options.config,
  };
  return openServices(config, {
    clock: options.clock ?? createFakeClock(),
    log: options.log ?? silentLogger,
    env: { SVC_MASTER_KEY: testMasterKeyHex },
  });
}
