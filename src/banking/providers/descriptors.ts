// The provider catalog: one descriptor per bank provider, from which the rest derives: the
// registry the sync path pulls from (registry.ts builds each pulled provider with its factory
// there), `svc providers`, the portal's provider list and its connect page. The stored provider
// names (db/schema/values.ts, below the features) are held to its keys by the compiler. Plain
// data, so the portal can import it; the providers' code lives in their folders.
import type { Config } from "../../config/config.ts";
import { type ProviderName, providerNames } from "../../db/schema/values.ts";
import { enableBankingBudget, type RequestBudget, simplefinBudget } from "./budget.ts";

/** The settings a descriptor reads to say whether this instance can use the provider. */
export type ProviderConfig = Pick<Config, "enableBankingApplicationId" | "enableBankingKeyFile">;

/**
 * How a connection is made: the simulated bank (`svc connect` / the portal's sandbox card), a
 * redirect to the bank to approve (and back to the callback), a pasted setup token, or pushed
 * by the operator (never pulled).
 */
export type LinkFlow = "sandbox" | "bank_redirect" | "setup_token" | "pushed";

export interface ProviderDescriptor {
  /** The provider's name where people read it (the portal's connection lists). */
  label: string;
  /** What the portal's connect page offers it as; only real banks are offered there. */
  connectLabel?: string;
  link: LinkFlow;
  /** A real bank: linking one can activate the account (spec 3); its ids are hints only. */
  real: boolean;
  /** Whether this instance can use it, from the configuration alone. */
  configured(config: ProviderConfig): boolean;
  /** Its request budget (budget.ts); null: unrationed. */
  budget: RequestBudget | null;
}

export const providerCatalog = {
  sandbox: {
    label: "Sandbox bank",
    link: "sandbox",
    real: false,
    configured: () => true,
    budget: null,
  },
  import: {
    label: "Operator ingest",
    link: "pushed",
    real: false,
    configured: () => true,
    budget: null,
  },
  enable_banking: {
    label: "Enable Banking",
    connectLabel: "European bank (Enable Banking)",
    link: "bank_redirect",
    real: true,
    configured: (config) =>
      Boolean(config.enableBankingApplicationId && config.enableBankingKeyFile),
    budget: enableBankingBudget,
  },
  simplefin: {
    label: "SimpleFIN Bridge",
    connectLabel: "North American bank (SimpleFIN Bridge)",
    link: "setup_token",
    real: true,
    configured: () => true,
    budget: simplefinBudget,
  },
} as const satisfies Record<ProviderName, ProviderDescriptor>;

export { type ProviderName, providerNames };

/** Providers the sync path pulls from (all but the pushed ones). */
export type PulledProviderName = {
  [N in ProviderName]: (typeof providerCatalog)[N]["link"] extends "pushed" ? never : N;
}[ProviderName];
export const pulledProviderNames = providerNames.filter(
  (name) => providerCatalog[name].link !== "pushed",
) as PulledProviderName[];

/** Real banks, in the catalog's order. */
export type RealProviderName = {
  [N in ProviderName]: (typeof providerCatalog)[N]["real"] extends true ? N : never;
}[ProviderName];
export const realProviderNames = providerNames.filter(
  (name) => providerCatalog[name].real,
) as RealProviderName[];

/** The descriptor of a stored name, typed as the general shape. */
export function providerDescriptor(name: ProviderName): ProviderDescriptor {
  return providerCatalog[name];
}

/** A budget as `svc providers` prints it. */
export function budgetText(name: ProviderName): string {
  const { budget, link } = providerDescriptor(name);
  if (budget === null) return link === "sandbox" ? "none (simulated bank)" : "none";
  const per = budget.scope === "account" ? "account" : "access";
  return `${budget.requests} requests a day per ${per}`;
}
