// Giving claimed deliveries back (stop): those never started and those still under way when the
// grace period ends are due again at once, so the next start sends them without waiting for the
// lease to run out. A failure leaves the leases to expire on their own.
import { and, eq, inArray } from "drizzle-orm";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/store.ts";
import type { Logger } from "../log.ts";
import type { ClaimedDelivery } from "./delivery-claims.ts";

export async function releaseLeases(
  deps: { db: Db; clock: Clock; log: Logger },
  released: ClaimedDelivery[],
): Promise<void> {
  if (released.length === 0) return;
  const { db, clock } = deps;
  const { deliveries } = db.t;
  try {
    await db.write((tx) =>
      tx
        .update(deliveries)
        .set({ nextAttemptAt: clock.now(), leaseExpiresAt: null })
        .where(
          and(
            inArray(
              deliveries.id,
              released.map((d) => d.id),
            ),
            eq(deliveries.status, "pending"),
          ),
        ),
    );
  } catch (error) {
    deps.log.error("releasing delivery leases failed; they expire on their own", { error });
  }
}
