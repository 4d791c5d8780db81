// The registry of providers the sync path can pull from. It lives apart from the provider
// interface (src/banking/provider.ts) so the interface imports no provider and each provider
// imports only the interface: no import circle (issue 13).
import type { Clock } from "../../clock.ts";
import type { ProviderRegistry } from "../provider.ts";
import { createSandboxProvider } from "../sandbox/provider.ts";

export function createProviders(clock: Clock): ProviderRegistry {
  return { sandbox: createSandboxProvider(clock) };
}
