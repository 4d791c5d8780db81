// A writer of an account's transactions (new rows, bookings, edits, removals) and a client of
// the change feed that keeps a copy, for the change-feed tests and the benchmark.
import { and, eq, isNull } from "drizzle-orm";
import type { Clock } from "../../src/core/clock.ts";
import { newId } from "../../src/core/ids.ts";
import type { Db } from "../../src/db/store.ts";

export interface FeedPage {
  added: { transaction_id: string }[];
  modified: { transaction_id: string }[];
  removed: { transaction_id: string }[];
  next_cursor: string;
  has_more: boolean;
}

/** The copy a client keeps: id -> the transaction's JSON as served. */
export class FeedCopy {
  readonly rows = new Map<string, unknown>();
  cursor: string | undefined;
  pages = 0;

  apply(page: FeedPage): void {
    const ids = [...page.added, ...page.modified, ...page.removed].map((r) => r.transaction_id);
    if (new Set(ids).size !== ids.length) throw new Error("a transaction twice in one page");
    for (const row of [...page.added, ...page.modified]) this.rows.set(row.transaction_id, row);
    for (const row of page.removed) this.rows.delete(row.transaction_id);
    this.cursor = page.next_cursor;
    this.pages++;
  }
}

/** Reads pages until has_more is false; `between` runs after each page (writes while paging). */
export async function drainFeed(
  read: (cursor: string | undefined) => Promise<FeedPage>,
  copy: FeedCopy,
  between?: () => Promise<void>,
): Promise<void> {
  for (;;) {
    const page = await read(copy.cursor);
    copy.apply(page);
    if (between) await between();
    if (!page.has_more) return;
  }
}

/** Random writes on one account's transactions, as syncs, bookings, edits and removals make them. */
export function transactionWriter(
  db: Db,
  clock: Clock & { advance?: (ms: number) => unknown },
  accountId: string,
  seed = 1,
) {
  let state = seed;
  const random = () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
  const pick = <T>(list: T[]): T | undefined => list[Math.floor(random() * list.length)];
  const day = () => `2026-01-${String(1 + Math.floor(random() * 28)).padStart(2, "0")}`;
  const row = (status: "booked" | "pending", pendingId: string | null = null) => {
    const id = newId();
    const now = clock.now();
    return {
      id,
      accountId,
      externalId: id,
      status,
      amount: `-${1 + Math.floor(random() * 900)}.${String(Math.floor(random() * 100)).padStart(2, "0")}`,
      currency: "EUR",
      bookingDate: day(),
      valueDate: null,
      description: `CARD PAYMENT ${Math.floor(random() * 1000)}`,
      counterpartyName: null,
      merchantName: "Corner Shop",
      bookedTransactionId: null,
      pendingTransactionId: pendingId,
      removedAt: null,
      createdAt: now,
      updatedAt: now,
    };
  };
  const open = async (tx: Db, status: "pending" | "booked") => {
    const { transactions: t } = tx.t;
    return tx
      .select({ id: t.id })
      .from(t)
      .where(
        and(
          eq(t.accountId, accountId),
          eq(t.status, status),
          isNull(t.removedAt),
          isNull(t.bookedTransactionId),
        ),
      );
  };
  /** One write of the kind chosen at random, in `tx`. */
  async function step(tx: Db): Promise<string> {
    const { transactions: t } = tx.t;
    const now = clock.now();
    const roll = random();
    if (roll < 0.3) {
      const rows = Array.from({ length: 1 + Math.floor(random() * 4) }, () =>
        row(random() < 0.4 ? "pending" : "booked"),
      );
      await tx.insert(t).values(rows);
      return "sync";
    }
    if (roll < 0.5) {
      const pending = pick(await open(tx, "pending"));
      if (!pending) return "none";
      const booked = row("booked", pending.id);
      await tx.insert(t).values(booked);
      await tx
        .update(t)
        .set({ bookedTransactionId: booked.id, updatedAt: now })
        .where(eq(t.id, pending.id));
      return "booking";
    }
    if (roll < 0.8) {
      const target = pick([...(await open(tx, "booked")), ...(await open(tx, "pending"))]);
      if (!target) return "none";
      await tx
        .update(t)
        .set({ amount: `-${Math.floor(random() * 900)}.00`, description: "EDITED", updatedAt: now })
        .where(eq(t.id, target.id));
      return "edit";
    }
    const pending = pick(await open(tx, "pending"));
    if (!pending) return "none";
    await tx.update(t).set({ removedAt: now, updatedAt: now }).where(eq(t.id, pending.id));
    return "removal";
  }
  return {
    step,
    /** `count` writes, each in a transaction of its own. */
    async run(count: number): Promise<void> {
      for (let i = 0; i < count; i++) {
        clock.advance?.(1);
        await db.write((tx) => step(tx));
      }
    },
  };
}
