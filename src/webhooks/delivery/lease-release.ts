// Giving claimed deliveries back (stop): those never started and those still under way when the
// grace period ends are due again at once, so the next start sends them without waiting for the
// lease to run out. A failure leaves the leases to expire on their own.
import { and, eq, inArray } from "drizzle-orm";
import type { Clock } from "../../core/clock.ts";
import type { Db } from "../../db/store.ts";
import type { Logger } from "../../log/log.ts";
import type { ClaimedDelivery } from "./claimed-delivery.ts";

export async function releaseLeases(
  deps: { db: Db; clock: Clock; log: Logger },
  released: ClaimedDelivery[],
): Promise<void> {
  if (released.length === 0) return;
  const { db, clock } = deps;
  const { deliveries } = db.t;
  // By claim: a row claimed again since (its lease ran out) is not ours to give back.
  const byClaim = new Map<string, string[]>();
  for (const delivery of released) {
    byClaim.set(delivery.claimToken, [...(byClaim.get(delivery.claimToken) ?? []), delivery.id]);
  }
  try {
    await db.write(async (tx) => {
      for (const [token, ids] of byClaim) {
        await tx
          .update(deliveries)
          .set({ nextAttemptAt: clock.now(), leaseExpiresAt: null })
          .where(
            and(
              inArray(deliveries.id, ids),
              eq(deliveries.status, "pending"),
              eq(deliveries.claimToken, token),
            ),
          );
      }
    });
  } catch (error) {
    deps.log.error("releasing delivery leases failed; they expire on their own", { error });
  }
}
