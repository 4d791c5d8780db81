// Shared set-up for the banking tests: a service account, optional webhook endpoints, a
// scripted provider, and readers for what ended up in the database.
import { asc, sql } from "drizzle-orm";
import type { AccountRecord, BalanceRecord, TransactionRecord } from "../../src/banking/model.ts";
import type { BankProvider, ProviderStatus } from "../../src/banking/provider.ts";
import {
  balances,
  bankAccounts,
  type ConnectionStatus,
  connections,
  deliveries,
  events,
  serviceAccounts,
  syncRuns,
  transactions,
  webhookEndpoints,
} from "../../src/db/schema.ts";
import { newId } from "../../src/ids.ts";
import type { Services } from "../../src/services.ts";
import { createFakeClock, type FakeClock } from "../support/fake-clock.ts";
import { createTestServices } from "../support/services.ts";

export interface Setup {
  services: Services;
  clock: FakeClock;
  accountId: string;
}

/** A service account without users (no password hashing: keeps the suites fast). */
export function insertServiceAccount(services: Services): string {
  const id = newId();
  const now = services.clock.now();
  services.db
    .insert(serviceAccounts)
    .values({ id, name: `Owner ${id.slice(0, 8)}`, createdAt: now, updatedAt: now })
    .run();
  return id;
}

export function setup(start = "2026-01-15T09:00:00.000Z"): Setup {
  const clock = createFakeClock(start);
  const services = createTestServices({ clock });
  return { services, clock, accountId: insertServiceAccount(services) };
}

/** An active, verified endpoint: every account event gets a pending delivery row for it. */
export function addVerifiedEndpoint(services: Services, serviceAccountId: string): string {
  const id = newId();
  const now = services.clock.now();
  services.db
    .insert(webhookEndpoints)
    .values({
      id,
      serviceAccountId,
      url: `https://hooks.example.com/${id}`,
      secretSalt: "salt",
      secretHash: "hash",
      status: "active",
      verifiedAt: now,
      createdAt: now,
      updatedAt: now,
    })
    .run();
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

export function storedEvents(services: Services): StoredEvent[] {
  return services.db
    .select()
    .from(events)
    .orderBy(asc(events.createdAt), asc(sql`rowid`))
    .all()
    .map((row) => JSON.parse(row.body) as StoredEvent);
}

/** Every row of the bank-data and event tables, to prove that nothing changed. */
export function tableContents(services: Services) {
  const db = services.db;
  return {
    connections: db.select().from(connections).orderBy(asc(connections.id)).all(),
    accounts: db.select().from(bankAccounts).orderBy(asc(bankAccounts.id)).all(),
    balances: db.select().from(balances).orderBy(asc(balances.accountId)).all(),
    transactions: db.select().from(transactions).orderBy(asc(transactions.id)).all(),
    events: db.select().from(events).orderBy(asc(events.id)).all(),
    deliveries: db.select().from(deliveries).orderBy(asc(deliveries.id)).all(),
  };
}

export function syncRunRows(services: Services) {
  return services.db.select().from(syncRuns).orderBy(asc(syncRuns.startedAt)).all();
}

/** Inserts a connection read by the scripted provider (registered under the sandbox name). */
export function insertConnection(
  services: Services,
  serviceAccountId: string,
  status: ConnectionStatus = "linked",
): string {
  const id = newId();
  const now = services.clock.now();
  services.db
    .insert(connections)
    .values({
      id,
      serviceAccountId,
      provider: "sandbox",
      externalId: `fake-${id}`,
      institution: "Scripted Bank",
      status,
      createdAt: now,
      updatedAt: now,
    })
    .run();
  return id;
}

export interface ScriptedBank {
  status: ProviderStatus;
  /** When set, every call fails with this message. */
  failWith?: string;
  /** When set, reads wait for it (to hold a sync in flight). */
  gate?: Promise<void>;
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
  };
  const guard = async () => {
    if (bank.gate) await bank.gate;
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
