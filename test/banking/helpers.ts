// Shared set-up for the banking tests: a service account, optional webhook endpoints, a
// scripted provider, and readers for what ended up in the database.
import { asc } from "drizzle-orm";
import type { AccountRecord, BalanceRecord, TransactionRecord } from "../../src/banking/model.ts";
import type { BankProvider, ProviderStatus } from "../../src/banking/provider.ts";
import { newId } from "../../src/core/ids.ts";
import type { ConnectionStatus, NewRow } from "../../src/db/schema.ts";
import type { Services } from "../../src/server/services.ts";
import { createFakeClock, type FakeClock } from "../support/fake-clock.ts";
import { createTestServices } from "../support/services.ts";

export interface Setup {
  services: Services;
  clock: FakeClock;
  accountId: string;
}

/** A service account without users (no password hashing: keeps the suites fast). */
export async function insertServiceAccount(services: Services): Promise<string> {
  const id = newId();
  const now = services.clock.now();
  await services.db.write((tx) =>
    tx
      .insert(tx.t.serviceAccounts)
      .values({ id, name: `Owner ${id.slice(0, 8)}`, createdAt: now, updatedAt: now }),
  );
  return id;
}

export async function setup(start = "2026-01-15T09:00:00.000Z"): Promise<Setup> {
  const clock = createFakeClock(start);
  const services = await createTestServices({ clock });
  return { services, clock, accountId: await insertServiceAccount(services) };
}

/** An active, verified endpoint: every account event gets a pending delivery row for it. */
export async function addVerifiedEndpoint(
  services: Services,
  serviceAccountId: string,
): Promise<string> {
  const id = newId();
  const now = services.clock.now();
  await services.db.write((tx) =>
    tx.insert(tx.t.webhookEndpoints).values({
      id,
      serviceAccountId,
      url: `https://hooks.example.com/${id}`,
      secretSalt: "salt",
      secretHash: "hash",
      status: "active",
      verifiedAt: now,
      createdAt: now,
      updatedAt: now,
    }),
  );
  return id;
}

/** An event body as a receiver parses it. */
export interface StoredEvent {
  id: string;
  type: string;
  created_at: string;
  api_version: string;
  data: Record<string, unknown>;
}

/** Events in the order they were written (ids are time-ordered). */
export async function storedEvents(services: Services): Promise<StoredEvent[]> {
  const { events } = services.db.t;
  const rows = await services.db
    .select()
    .from(events)
    .orderBy(asc(events.createdAt), asc(events.id));
  return rows.map((row) => JSON.parse(row.body) as StoredEvent);
}

/** Every row of the bank-data and event tables, to prove that nothing changed. */
export async function tableContents(services: Services) {
  const db = services.db;
  const { connections, bankAccounts, balances, transactions, events, deliveries } = db.t;
  return {
    connections: await db.select().from(connections).orderBy(asc(connections.id)),
    accounts: await db.select().from(bankAccounts).orderBy(asc(bankAccounts.id)),
    balances: await db.select().from(balances).orderBy(asc(balances.accountId)),
    transactions: await db.select().from(transactions).orderBy(asc(transactions.id)),
    events: await db.select().from(events).orderBy(asc(events.id)),
    deliveries: await db.select().from(deliveries).orderBy(asc(deliveries.id)),
  };
}

export async function syncRunRows(services: Services) {
  const { syncRuns } = services.db.t;
  return services.db.select().from(syncRuns).orderBy(asc(syncRuns.startedAt), asc(syncRuns.id));
}

/** Inserts a connection read by the scripted provider (registered under the sandbox name). */
export async function insertConnection(
  services: Services,
  serviceAccountId: string,
  status: ConnectionStatus = "linked",
  overrides: Partial<NewRow<"connections">> = {},
): Promise<string> {
  const id = newId();
  const now = services.clock.now();
  await services.db.write((tx) =>
    tx.insert(tx.t.connections).values({
      id,
      serviceAccountId,
      provider: "sandbox",
      externalId: `fake-${id}`,
      institution: "Scripted Bank",
      status,
      createdAt: now,
      updatedAt: now,
      ...overrides,
    }),
  );
  return id;
}

export interface ScriptedBank {
  status: ProviderStatus;
  /** When set, every call fails with this message. */
  failWith?: string;
  /** When set, reads wait for it (to hold a sync in flight). */
  gate?: Promise<void>;
  /** How many reads have started (a sync holding its lease has reached the provider). */
  readsStarted: number;
  accounts: AccountRecord[];
  balances: Map<string, BalanceRecord>;
  transactions: Map<string, TransactionRecord[]>;
  /** The `since` of every fetchTransactions call. */
  sinceSeen: (string | undefined)[];
}

export function account(externalId: string, overrides: Partial<AccountRecord> = {}): AccountRecord {
  return {
    externalId,
    name: `Account ${externalId}`,
    type: "current",
    currency: "EUR",
    iban: "DE89370400440532013000",
    mask: "3000",
    ...overrides,
  };
}

export function balance(current: string, overrides: Partial<BalanceRecord> = {}): BalanceRecord {
  return {
    current,
    available: current,
    currency: "EUR",
    asOf: new Date("2026-01-15T08:00:00.000Z"),
    ...overrides,
  };
}

export function txn(
  externalId: string,
  overrides: Partial<TransactionRecord> = {},
): TransactionRecord {
  return {
    externalId,
    status: "booked",
    amount: "-12.30",
    currency: "EUR",
    bookingDate: "2026-01-14",
    valueDate: null,
    description: `Card payment ${externalId}`,
    counterpartyName: null,
    merchantName: "Corner Shop",
    pendingExternalId: null,
    ...overrides,
  };
}

export function scriptedProvider(): { bank: ScriptedBank; provider: BankProvider } {
  const bank: ScriptedBank = {
    status: { status: "linked" },
    accounts: [],
    balances: new Map(),
    transactions: new Map(),
    sinceSeen: [],
    readsStarted: 0,
  };
  const guard = async () => {
    bank.readsStarted++;
    if (bank.gate !== undefined) await bank.gate;
    if (bank.failWith) throw new Error(bank.failWith);
  };
  const provider: BankProvider = {
    name: "sandbox",
    minIntervalMs: 60_000,
    async connectionStatus() {
      await guard();
      return bank.status;
    },
    async listAccounts() {
      await guard();
      return bank.accounts;
    },
    async fetchBalance(_connection, accountExternalId) {
      await guard();
      const found = bank.balances.get(accountExternalId);
      if (!found) throw new Error(`no balance for ${accountExternalId}`);
      return found;
    },
    async fetchTransactions(_connection, accountExternalId, since) {
      await guard();
      bank.sinceSeen.push(since);
      return bank.transactions.get(accountExternalId) ?? [];
    },
  };
  return { bank, provider };
}
