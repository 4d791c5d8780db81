// service_accounts.data_generation and rows moved between owners (migrations: the data-generation
// triggers and their "generation moves"): a connection or a bank account given to another service
// account, a balance or a transaction put under another bank account, changes the bank data of
// the owner it leaves as well as the one it joins, so both generations move in the same commit.
// Remembered answers and owner checks are keyed on the generation (api/middleware/answer-store.ts,
// api/accounts/read.ts), so a move by hand must not leave the old owner's standing.
import { afterAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { createServiceAccount } from "../../src/accounts/service-accounts.ts";
import type { Db } from "../../src/db/store.ts";
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

/**
 * Two owners, each with a connection and a bank account; `from`'s account has a balance and one
 * transaction.
 */
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
  const fromAccount = fromBank.accountIds[0] as string;
  const [fromTransaction] = await insertTransactions(db, clock, fromAccount, [
    { bookingDate: "2026-11-30" },
  ]);
  return {
    from,
    to,
    fromConnection: fromBank.connectionId,
    fromAccount,
    fromTransaction: fromTransaction as string,
    toConnection,
    toAccount,
  };
}

type TwoOwners = Awaited<ReturnType<typeof twoOwners>>;

/** Runs `write` and says whose generations moved. */
async function generationsMovedBy(owners: string[], write: () => Promise<unknown>) {
  const before = await Promise.all(owners.map(generationOf));
  await write();
  const after = await Promise.all(owners.map(generationOf));
  return owners.map((_, i) => (after[i] as number) > (before[i] as number));
}

/** Each kind of move, by the rule its test states. */
const moves: [rule: string, move: (tx: Db, o: TwoOwners) => Promise<unknown>][] = [
  [
    "a connection given to another service account",
    (tx, o) =>
      tx
        .update(connections)
        .set({ serviceAccountId: o.to })
        .where(eq(connections.id, o.fromConnection)),
  ],
  [
    "a bank account given to another service account",
    (tx, o) =>
      tx
        .update(bankAccounts)
        .set({ serviceAccountId: o.to, connectionId: o.toConnection })
        .where(eq(bankAccounts.id, o.fromAccount)),
  ],
  [
    "a balance put under another owner's bank account",
    (tx, o) =>
      tx
        .update(balances)
        .set({ accountId: o.toAccount })
        .where(eq(balances.accountId, o.fromAccount)),
  ],
  [
    "a transaction put under another owner's bank account",
    (tx, o) =>
      tx
        .update(transactions)
        .set({ accountId: o.toAccount })
        .where(eq(transactions.id, o.fromTransaction)),
  ],
];

describe("a row moved to another owner moves both owners' data generations", () => {
  for (const [index, [rule, move]] of moves.entries()) {
    test(rule, async () => {
      const o = await twoOwners(`move-${index}`);
      const moved = await generationsMovedBy([o.from, o.to], () => db.write((tx) => move(tx, o)));
      expect(moved).toEqual([true, true]);
    });
  }

  test("an update that moves nothing still moves its owner's generation, and only that one", async () => {
    const o = await twoOwners("in-place");
    const moved = await generationsMovedBy([o.from, o.to], () =>
      db.write(async (tx) => {
        await tx
          .update(transactions)
          .set({ amount: "-1.00" })
          .where(eq(transactions.id, o.fromTransaction));
        await tx
          .update(bankAccounts)
          .set({ name: "Renamed" })
          .where(eq(bankAccounts.id, o.fromAccount));
      }),
    );
    expect(moved).toEqual([true, false]);
  });
});
