// service_accounts.data_generation and rows moved between owners (migrations: the data-generation
// triggers and their "generation moves"): a connection or a bank account given to another service
// account, a balance or a transaction put under another bank account, changes the bank data of
// the owner it leaves as well as the one it joins, so both generations move in the same commit.
// Remembered answers and owner checks are keyed on the generation (api/middleware/answer-store.ts,
// api/accounts/read.ts), so a move by hand must not leave the old owner's standing.
import { afterAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { createServiceAccount } from "../../src/accounts/service-accounts.ts";
import {
  insertBankAccount,
  insertConnection,
  insertTransactions,
  seedConnection,
} from "../support/bank-fixtures.ts";
import { createFakeClock } from "../support/fake-clock.ts";
import { createTestServices } from "../support/services.ts";

const clock = createFakeClock();
const services = await createTestServices({ clock });
afterAll(() => services.database.close());
const { db } = services;
const { serviceAccounts, connections, bankAccounts, balances, transactions } = db.t;

async function newOwner(label: string): Promise<string> {
  const created = await createServiceAccount(db, clock, {
    email: `${label}-${crypto.randomUUID()}@example.com`,
    password: "correct horse battery staple",
  });
  return created.account.id;
}

async function generationOf(serviceAccountId: string): Promise<number> {
  const [row] = await db
    .select({ generation: serviceAccounts.dataGeneration })
    .from(serviceAccounts)
    .where(eq(serviceAccounts.id, serviceAccountId));
  return Number(row?.generation);
}

/** Two owners, each with a connection and a bank account; `from`'s account has a balance. */
async function twoOwners(label: string) {
  const from = await newOwner(`${label}-from`);
  const to = await newOwner(`${label}-to`);
  const fromBank = await seedConnection(db, clock, from, { accounts: 1 });
  const toConnection = await insertConnection(db, clock, { serviceAccountId: to });
  // No balance: a balance is keyed by its account, so this one can take `from`'s.
  const toAccount = await insertBankAccount(db, clock, {
    serviceAccountId: to,
    connectionId: toConnection,
  });
  return {
    from,
    to,
    fromConnection: fromBank.connectionId,
    fromAccount: fromBank.accountIds[0] as string,
    toConnection,
    toAccount,
  };
}

/** Runs `write` and says whose generations moved. */
async function generationsMovedBy(owners: string[], write: () => Promise<unknown>) {
  const before = await Promise.all(owners.map(generationOf));
  await write();
  const after = await Promise.all(owners.map(generationOf));
  return owners.map((_, i) => (after[i] as number) > (before[i] as number));
}

describe("a row moved to another owner moves both owners' data generations", () => {
  test("a connection given to another service account", async () => {
    const o = await twoOwners("connection");
    const moved = await generationsMovedBy([o.from, o.to], () =>
      db.write((tx) =>
        tx
          .update(connections)
          .set({ serviceAccountId: o.to })
          .where(eq(connections.id, o.fromConnection)),
      ),
    );
    expect(moved).toEqual([true, true]);
  });

  test("a bank account given to another service account", async () => {
    const o = await twoOwners("bank-account");
    const moved = await generationsMovedBy([o.from, o.to], () =>
      db.write((tx) =>
        tx
          .update(bankAccounts)
          .set({ serviceAccountId: o.to, connectionId: o.toConnection })
          .where(eq(bankAccounts.id, o.fromAccount)),
      ),
    );
    expect(moved).toEqual([true, true]);
  });

  test("a balance put under another owner's bank account", async () => {
    const o = await twoOwners("balance");
    const moved = await generationsMovedBy([o.from, o.to], () =>
      db.write((tx) =>
        tx
          .update(balances)
          .set({ accountId: o.toAccount })
          .where(eq(balances.accountId, o.fromAccount)),
      ),
    );
    expect(moved).toEqual([true, true]);
  });

  test("a transaction put under another owner's bank account", async () => {
    const o = await twoOwners("transaction");
    const [transactionId] = await insertTransactions(db, clock, o.fromAccount, [
      { bookingDate: "2026-11-30" },
    ]);
    const moved = await generationsMovedBy([o.from, o.to], () =>
      db.write((tx) =>
        tx
          .update(transactions)
          .set({ accountId: o.toAccount })
          .where(eq(transactions.id, transactionId as string)),
      ),
    );
    expect(moved).toEqual([true, true]);
  });

  test("an update that moves nothing still moves its owner's generation, and only that one", async () => {
    const o = await twoOwners("in-place");
    const [transactionId] = await insertTransactions(db, clock, o.fromAccount, [
      { bookingDate: "2026-11-30" },
    ]);
    const moved = await generationsMovedBy([o.from, o.to], () =>
      db.write(async (tx) => {
        await tx
          .update(transactions)
          .set({ amount: "-1.00" })
          .where(eq(transactions.id, transactionId as string));
        await tx
          .update(bankAccounts)
          .set({ name: "Renamed" })
          .where(eq(bankAccounts.id, o.fromAccount));
      }),
    );
    expect(moved).toEqual([true, false]);
  });
});
