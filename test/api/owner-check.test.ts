// The owner's check of a bank account (api/accounts/read.ts requireOwnAccount), remembered per
// service account and data generation: the generation moves with every change of the owner's
// bank accounts (database triggers), so a remembered answer is never one a query would not give.
import { afterAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { createAccountReads } from "../../src/api/accounts/read.ts";
import { ownerWithAccount } from "../support/bank-fixtures.ts";
import { createFakeClock } from "../support/fake-clock.ts";
import { createTestServices } from "../support/services.ts";

const clock = createFakeClock();
const services = await createTestServices({ clock });
afterAll(() => services.database.close());
const { db } = services;

const owner = (label: string) => ownerWithAccount(db, clock, label);

async function generationOf(serviceAccountId: string): Promise<number> {
  const { serviceAccounts } = db.t;
  const [row] = await db
    .select({ generation: serviceAccounts.dataGeneration })
    .from(serviceAccounts)
    .where(eq(serviceAccounts.id, serviceAccountId));
  return Number(row?.generation);
}

describe("the owner's check of a bank account", () => {
  test("is remembered within one data generation, and read again in the next one", async () => {
    const reads = createAccountReads(db);
    const { owner: ownerId, accountId } = await owner("remembered");
    const before = await generationOf(ownerId);
    await reads.requireOwnAccount(ownerId, accountId, before);
    const { bankAccounts } = db.t;
    await db.write((tx) => tx.delete(bankAccounts).where(eq(bankAccounts.id, accountId)));
    const after = await generationOf(ownerId);
    // Deleting the account moved its owner's generation (the trigger), in the same commit.
    expect(after).toBeGreaterThan(before);
    // The generation the account was found in still answers from memory (what no request with
    // a fresh key check can hold after the delete), the new one reads and finds nothing.
    await reads.requireOwnAccount(ownerId, accountId, before);
    await expect(reads.requireOwnAccount(ownerId, accountId, after)).rejects.toMatchObject({
      code: "not_found",
    });
    // Without a generation it always reads.
    await expect(reads.requireOwnAccount(ownerId, accountId)).rejects.toMatchObject({
      code: "not_found",
    });
  });

  test("an account moved to another owner by hand is no longer the old owner's from the next generation", async () => {
    const reads = createAccountReads(db);
    const from = await owner("moved-from");
    const to = await owner("moved-to");
    const before = await generationOf(from.owner);
    await reads.requireOwnAccount(from.owner, from.accountId, before);
    const { bankAccounts } = db.t;
    await db.write((tx) =>
      tx
        .update(bankAccounts)
        .set({ serviceAccountId: to.owner })
        .where(eq(bankAccounts.id, from.accountId)),
    );
    // The move changed the old owner's bank data too: its generation moved (the trigger).
    const after = await generationOf(from.owner);
    expect(after).toBeGreaterThan(before);
    await expect(reads.requireOwnAccount(from.owner, from.accountId, after)).rejects.toMatchObject({
      code: "not_found",
    });
    await reads.requireOwnAccount(to.owner, from.accountId, await generationOf(to.owner));
  });

  test("never remembers an account that was not found, nor one of another service account", async () => {
    const reads = createAccountReads(db);
    const mine = await owner("mine");
    const theirs = await owner("theirs");
    await expect(
      reads.requireOwnAccount(mine.owner, theirs.accountId, await generationOf(mine.owner)),
    ).rejects.toMatchObject({ code: "not_found" });
    // A miss, then the account comes back: the miss's generation reads again and finds it.
    const { bankAccounts } = db.t;
    const [row] = await db.select().from(bankAccounts).where(eq(bankAccounts.id, mine.accountId));
    await db.write((tx) => tx.delete(bankAccounts).where(eq(bankAccounts.id, mine.accountId)));
    const missed = await generationOf(mine.owner);
    await expect(reads.requireOwnAccount(mine.owner, mine.accountId, missed)).rejects.toMatchObject(
      { code: "not_found" },
    );
    await db.write((tx) => tx.insert(bankAccounts).values(row as typeof bankAccounts.$inferInsert));
    await reads.requireOwnAccount(mine.owner, mine.accountId, missed);
  });
});
