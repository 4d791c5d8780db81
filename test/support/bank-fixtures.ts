// Bank data written straight into the tables, as the sync will: for read-API tests and
// the benchmark, without depending on any provider. Works on either engine (`db.t`).
import { createServiceAccount } from "../../src/accounts/service-accounts.ts";
import type { Clock } from "../../src/core/clock.ts";
import { newId } from "../../src/core/ids.ts";
import { chunks } from "../../src/db/chunks.ts";
import type { ConnectionStatus, TransactionStatus } from "../../src/db/schema.ts";
import type { Db } from "../../src/db/store.ts";

export async function insertConnection(
  db: Db,
  clock: Clock,
  input: {
    serviceAccountId: string;
    status?: ConnectionStatus;
    institution?: string;
    error?: string | null;
    lastSyncedAt?: Date | null;
  },
): Promise<string> {
  const id = newId();
  const now = clock.now();
  await db.write((tx) =>
    tx.insert(tx.t.connections).values({
      id,
      serviceAccountId: input.serviceAccountId,
      provider: "import",
      externalId: id,
      institution: input.institution ?? "Fixture Bank",
      status: input.status ?? "linked",
      error: input.error ?? null,
      createdAt: now,
      updatedAt: now,
      lastSyncedAt: input.lastSyncedAt === undefined ? now : input.lastSyncedAt,
    }),
  );
  return id;
}

export async function insertBankAccount(
  db: Db,
  clock: Clock,
  input: {
    serviceAccountId: string;
    connectionId: string;
    name?: string;
    type?: string;
    currency?: string;
    iban?: string | null;
    mask?: string | null;
  },
): Promise<string> {
  const id = newId();
  const now = clock.now();
  await db.write((tx) =>
    tx.insert(tx.t.bankAccounts).values({
      id,
      connectionId: input.connectionId,
      serviceAccountId: input.serviceAccountId,
      externalId: id,
      name: input.name ?? "Everyday account",
      type: input.type ?? "current",
      currency: input.currency ?? "EUR",
      iban: input.iban === undefined ? "DE89370400440532013000" : input.iban,
      mask: input.mask === undefined ? "3000" : input.mask,
      institution: "Fixture Bank",
      createdAt: now,
      updatedAt: now,
    }),
  );
  return id;
}

export async function insertBalance(
  db: Db,
  input: {
    accountId: string;
    current: string;
    available?: string | null;
    currency?: string;
    asOf: Date;
    fetchedAt: Date;
  },
): Promise<void> {
  await db.write((tx) =>
    tx.insert(tx.t.balances).values({
      accountId: input.accountId,
      current: input.current,
      available: input.available === undefined ? input.current : input.available,
      currency: input.currency ?? "EUR",
      asOf: input.asOf,
      fetchedAt: input.fetchedAt,
    }),
  );
}

export interface FixtureTransaction {
  id?: string;
  status?: TransactionStatus;
  amount?: string;
  bookingDate: string;
  valueDate?: string | null;
  description?: string;
  counterpartyName?: string | null;
  merchantName?: string | null;
  bookedTransactionId?: string | null;
}

/** Inserts the rows in one transaction (fast for 100,000 rows); returns their ids in order. */
export async function insertTransactions(
  db: Db,
  clock: Clock,
  accountId: string,
  rows: FixtureTransaction[],
): Promise<string[]> {
  const now = clock.now();
  const values = rows.map((row) => {
    const id = row.id ?? newId();
    return {
      id,
      accountId,
      externalId: id,
      status: row.status ?? ("booked" as const),
      amount: row.amount ?? "-12.34",
      currency: "EUR",
      bookingDate: row.bookingDate,
      valueDate: row.valueDate === undefined ? row.bookingDate : row.valueDate,
      description: row.description ?? "CARD PAYMENT",
      counterpartyName: row.counterpartyName ?? null,
      merchantName: row.merchantName === undefined ? "Corner Shop" : row.merchantName,
      bookedTransactionId: row.bookedTransactionId ?? null,
      createdAt: now,
      updatedAt: now,
    };
  });
  await db.write(async (tx) => {
    for (const part of chunks(values)) await tx.insert(tx.t.transactions).values(part);
  });
  return values.map((v) => v.id);
}

/** `count` booked transactions spread over days before `lastDate`, `perDay` a day, newest first. */
export function generatedTransactions(
  count: number,
  options: { lastDate: string; perDay?: number },
): FixtureTransaction[] {
  const perDay = options.perDay ?? 3;
  const last = Date.parse(`${options.lastDate}T00:00:00Z`);
  return Array.from({ length: count }, (_, i) => {
    const day = new Date(last - Math.floor(i / perDay) * 86_400_000).toISOString().slice(0, 10);
    const cents = ((i * 7919) % 100_000) + 1;
    const amount = `${i % 5 === 0 ? "" : "-"}${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, "0")}`;
    return {
      bookingDate: day,
      amount,
      description: i % 5 === 0 ? "SALARY" : `CARD PAYMENT ${i}`,
      merchantName: i % 5 === 0 ? null : "Corner Shop",
      counterpartyName: i % 5 === 0 ? "Employer Ltd" : null,
    };
  });
}

export interface BankFixture {
  connectionId: string;
  accountIds: string[];
}

/** One linked connection carrying `accounts` accounts, each with a balance. */
export async function seedConnection(
  db: Db,
  clock: Clock,
  serviceAccountId: string,
  options: { accounts?: number; status?: ConnectionStatus } = {},
): Promise<BankFixture> {
  const connectionId = await insertConnection(db, clock, {
    serviceAccountId,
    ...(options.status ? { status: options.status } : {}),
  });
  const accountIds: string[] = [];
  for (let i = 0; i < (options.accounts ?? 2); i++) {
    const accountId = await insertBankAccount(db, clock, {
      serviceAccountId,
      connectionId,
      name: `Account ${i + 1}`,
      type: i === 0 ? "current" : "savings",
    });
    await insertBalance(db, {
      accountId,
      current: "1520.75",
      available: "1400.00",
      asOf: clock.now(),
      fetchedAt: clock.now(),
    });
    accountIds.push(accountId);
  }
  return { connectionId, accountIds };
}

/** A new service account with one bank account (its owner's id and the account's). */
export async function ownerWithAccount(
  db: Db,
  clock: Clock,
  label: string,
): Promise<{ owner: string; accountId: string }> {
  const created = await createServiceAccount(db, clock, {
    email: `${label}-${crypto.randomUUID()}@example.com`,
    password: "correct horse battery staple",
  });
  const bank = await seedConnection(db, clock, created.account.id, { accounts: 1 });
  return { owner: created.account.id, accountId: bank.accountIds[0] as string };
}
