// The registry of providers the sync path can pull from, built from the provider catalog
// (descriptors.ts) with each provider's factory. It lives apart from the provider interface
// (src/banking/provider.ts) so the interface imports no provider and each provider imports only
// the interface: no import circle. Real banks join when their descriptor says they are
// configured (Enable Banking: an application id and key file; SimpleFIN always, its users bring
// their own access), and only when the master key is at hand to open their secrets.

import type { Config } from "../../config/config.ts";
import type { Clock } from "../../core/clock.ts";
import type { BankProvider, ProviderRegistry } from "../provider.ts";
import { createSandboxProvider } from "../sandbox/provider.ts";
import { type PulledProviderName, providerCatalog, pulledProviderNames } from "./descriptors.ts";
import { createEnableBankingClient, type EnableBankingClient } from "./enable-banking/client.ts";
import { lazySigner } from "./enable-banking/jwt.ts";
import { createEnableBankingProvider } from "./enable-banking/provider.ts";
import { createProviderHttp, type ProviderHttp } from "./http.ts";
import { providerSecretBox } from "./secrets.ts";
import { createSimplefinClient, type SimplefinClient } from "./simplefin/client.ts";
import { createSimplefinProvider } from "./simplefin/provider.ts";

export type RealBankConfig = Pick<
  Config,
  | "providerCaFile"
  | "unsafeAllowPrivateTargets"
  | "enableBankingApplicationId"
  | "enableBankingKeyFile"
  | "enableBankingApiUrl"
>;

export interface RealBankDeps {
  config: RealBankConfig;
  masterKey: Uint8Array;
  /** Tests may pass their own; else built from the config. */
  http?: ProviderHttp;
}

export interface RealBankClients {
  enableBanking?: EnableBankingClient;
  simplefin: SimplefinClient;
}

export function realBankClients(
  clock: Clock,
  deps: Omit<RealBankDeps, "masterKey">,
): RealBankClients {
  const http =
    deps.http ??
    createProviderHttp({
      caFile: deps.config.providerCaFile,
      allowPrivate: deps.config.unsafeAllowPrivateTargets,
    });
  const { enableBankingApplicationId: appId, enableBankingKeyFile: keyFile } = deps.config;
  return {
    ...(appId && keyFile
      ? {
          enableBanking: createEnableBankingClient({
            http,
            signer: lazySigner(appId, keyFile),
            apiUrl: deps.config.enableBankingApiUrl,
            clock,
          }),
        }
      : {}),
    simplefin: createSimplefinClient({ http, now: () => clock.now().getTime() }),
  };
}

interface FactoryDeps {
  clock: Clock;
  /** Absent without the master key: then only the providers that need no secrets. */
  real?: { clients: RealBankClients; box: ReturnType<typeof providerSecretBox> };
}

/** How each pulled provider of the catalog (descriptors.ts) is built; undefined: not here. */
const factories: { [N in PulledProviderName]: (deps: FactoryDeps) => BankProvider | undefined } = {
  sandbox: ({ clock }) => createSandboxProvider(clock),
  enable_banking: ({ clock, real }) =>
    real?.clients.enableBanking &&
    createEnableBankingProvider({
      client: real.clients.enableBanking,
      box: real.box,
      now: () => clock.now(),
    }),
  simplefin: ({ clock, real }) =>
    real &&
    createSimplefinProvider({
      client: real.clients.simplefin,
      box: real.box,
      now: () => clock.now(),
    }),
};

/**
 * The registry: every pulled provider of the catalog this instance can use. Built once where
 * the services are wired (server/services.ts) and handed to what syncs.
 */
export function createProviders(clock: Clock, real?: RealBankDeps): ProviderRegistry {
  const deps: FactoryDeps = real
    ? {
        clock,
        real: {
          clients: realBankClients(clock, real),
          box: providerSecretBox(real.masterKey),
        },
      }
    : { clock };
  const registry: ProviderRegistry = {};
  for (const name of pulledProviderNames) {
    if (real && !providerCatalog[name].configured(real.config)) continue;
    const provider = factories[name](deps);
    if (provider) registry[name] = provider;
  }
  return registry;
}
