// The registry of providers the sync path can pull from. It lives apart from the provider
// interface (src/banking/provider.ts) so the interface imports no provider and each provider
// imports only the interface: no import circle. Real banks join when configured:
// Enable Banking with an application id and key file, SimpleFIN always (its users bring their
// own access), both only when the master key is at hand to open their secrets.

import type { Config } from "../../config/config.ts";
import type { Clock } from "../../core/clock.ts";
import type { ProviderRegistry } from "../provider.ts";
import { createSandboxProvider } from "../sandbox/provider.ts";
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

export function enableBankingConfigured(config: RealBankConfig): boolean {
  return Boolean(config.enableBankingApplicationId && config.enableBankingKeyFile);
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

export function createProviders(clock: Clock, real?: RealBankDeps): ProviderRegistry {
  const registry: ProviderRegistry = { sandbox: createSandboxProvider(clock) };
  if (!real) return registry;
  const clients = realBankClients(clock, real);
  const box = providerSecretBox(real.masterKey);
  const now = () => clock.now();
  registry.simplefin = createSimplefinProvider({ client: clients.simplefin, box, now });
  if (clients.enableBanking)
    registry.enable_banking = createEnableBankingProvider({
      client: clients.enableBanking,
      box,
      now,
    });
  return registry;
}
