// Retention of the transactions change feed (src/api/transaction-changes/read.ts): changes are
// kept for the retention period plus a margin (src/api/transaction-changes/cursor.ts), since a cursor is
// valid for the retention period and the changes after it must still be there. Changes are
// stamped with the row's updated_at (the writer's clock), or for a deleted row its last one.
import { inArray, lt } from "drizzle-orm";
import type { Db } from "../db/store.ts";

const batchSize = 1_000;

/**
 * Changes are kept this much longer than a cursor is valid: a transaction that began before a
 * cursor was issued and committed after it writes changes stamped a little before the cursor.
 */
export const changesPruneMarginMs = 86_400_000;

/** Deletes changes written before `before` (the retention job), a batch at a time. */
export async function pruneTransactionChanges(db: Db, before: Date): Promise<number> {
  const { transactionChanges: c } = db.t;
  let deleted = 0;
  for (;;) {
    const removed = await db.write(async (tx) => {
      const rows = await tx
        .select({ seq: c.seq })
        .from(c)
        .where(lt(c.createdAt, before))
        .limit(batchSize);
      if (rows.length === 0) return 0;
      await tx.delete(c).where(
        inArray(
          c.seq,
          rows.map((r) => r.seq),
        ),
      );
      return rows.length;
    });
    deleted += removed;
    if (removed < batchSize) return deleted;
  }
}
