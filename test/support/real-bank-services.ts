// Services wired to both provider stubs over real HTTPS (one throwaway CA): the set-up every
// real-bank suite shares.

import type { Config } from "../../src/config/config.ts";
import type { Clock } from "../../src/core/clock.ts";
import type { Logger } from "../../src/log/log.ts";
import type { Services } from "../../src/server/services.ts";
import { type EnableBankingStub, startEnableBankingStub } from "./enable-banking-stub.ts";
import { createTestPki } from "./pki.ts";
import { createTestServices } from "./services.ts";
import { type SimplefinStub, startSimplefinStub } from "./simplefin-stub.ts";

export interface RealBankServices {
  services: Services;
  eb: EnableBankingStub;
  sf: SimplefinStub;
  stopStubs(): void;
}

export async function createRealBankServices(options: {
  clock: Clock;
  log?: Logger;
  config?: Partial<Config>;
}): Promise<RealBankServices> {
  const pki = await createTestPki();
  const eb = await startEnableBankingStub({ pki, clock: options.clock });
  const sf = await startSimplefinStub(pki);
  const services = await createTestServices({
    clock: options.clock,
    ...(options.log ? { log: options.log } : {}),
    config: {
      providerCaFile: pki.caFile,
      enableBankingApplicationId: eb.applicationId,
      enableBankingKeyFile: eb.keyFile,
      enableBankingApiUrl: eb.url,
      ...options.config,
    },
  });
  return {
    services,
    eb,
    sf,
    stopStubs() {
      eb.stop();
      sf.stop();
    },
  };
}
