// The provider interface (docs/providers.md): kept small, like the provider layers
// of multi-bank engines, so a real aggregator can be added next to the sandbox bank. Each
// provider maps its own payloads into our model in one `transform` step.
import type { ConnectionStatus } from "../db/schema.ts";
import type { AccountRecord, BalanceRecord, TransactionRecord } from "./model.ts";
import type { RequestBudget } from "./providers/budget.ts";
import type { ProviderName } from "./providers/descriptors.ts";
import type { SkipTally } from "./skips.ts";

/** What a provider is told about the connection it reads. */
export interface ProviderConnection {
  id: string;
  externalId: string;
  institution: string;
  /** The status we last stored (the sandbox bank is driven through it by the operator). */
  status: ConnectionStatus;
  /** The connection's provider_state, parsed. */
  state: unknown;
  /** Real banks: the provider secret as stored (sealed; the provider opens it). */
  sealedSecret?: string | null;
  /**
   * The start (YYYY-MM-DD) of this read's transaction window, for providers that read every
   * account in one request (SimpleFIN); undefined: the whole history the provider holds.
   */
  readSince?: string | undefined;
}

export interface ProviderStatus {
  status: ConnectionStatus;
  /** A message for operators when the status is `error`. */
  error?: string;
}

/** What a provider has to tell after a read: its message to the user and what it skipped. */
export interface ProviderNotes {
  message: string | null;
  skipped: SkipTally;
}

/** A source of bank data that the sync path pulls from. Every call may throw on failure. */
export interface BankProvider {
  readonly name: ProviderName;
  /** Scheduled syncs of one connection are at least this far apart. */
  readonly minIntervalMs: number;
  /** Real banks: the provider's request budget (src/banking/providers/budget.ts). */
  readonly budget?: RequestBudget;
  connectionStatus(connection: ProviderConnection): Promise<ProviderStatus>;
  listAccounts(connection: ProviderConnection): Promise<AccountRecord[]>;
  /** The account's balance; null when the provider has none for it (a blocked account). */
  fetchBalance(
    connection: ProviderConnection,
    accountExternalId: string,
  ): Promise<BalanceRecord | null>;
  /**
   * Booked transactions with a booking date on or after `since` (YYYY-MM-DD), or the whole
   * history the provider holds when `since` is undefined, plus every row still pending.
   */
  fetchTransactions(
    connection: ProviderConnection,
    accountExternalId: string,
    since: string | undefined,
  ): Promise<TransactionRecord[]>;
  /**
   * Real banks: the notes of the reads made with this `connection` object (the sync passes the
   * same object to every call of one read).
   */
  notes?(connection: ProviderConnection): ProviderNotes;
}

/**
 * The providers the sync path can pull from, by name. Operator ingest has no entry: its data
 * is pushed (svc import / the operator route), never pulled. Built by `createProviders`
 * (src/banking/providers/registry.ts).
 */
export type ProviderRegistry = Partial<Record<ProviderName, BankProvider>>;
