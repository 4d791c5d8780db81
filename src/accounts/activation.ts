// Spec 3: "connecting a real bank moves the service account from sandbox to active once billing
// is set up". Both facts can come last: a bank linked on an account that already pays, or
// billing set up on an account that already has a linked bank. Each path calls this inside its
// own transaction, so the move happens exactly when the second fact arrives. Sandbox
// connections never count.
import { and, eq, inArray } from "drizzle-orm";
import type { Clock } from "../core/clock.ts";
import { realBankProviderNames, type SubscriptionStatus } from "../db/schema.ts";
import { type Db, first } from "../db/store.ts";

const billingSetUp: readonly SubscriptionStatus[] = ["active", "trialing"];

/** Moves a sandbox account to active when it pays and has a linked real bank; says whether. */
export async function activateIfRealBankAndBilling(
  tx: Db,
  clock: Clock,
  serviceAccountId: string,
): Promise<boolean> {
  const { serviceAccounts, connections } = tx.t;
  const account = await first(
    tx
      .select({ status: serviceAccounts.status, subscription: serviceAccounts.subscriptionStatus })
      .from(serviceAccounts)
      .where(eq(serviceAccounts.id, serviceAccountId)),
  );
  if (account?.status !== "sandbox" || !billingSetUp.includes(account.subscription)) return false;
  const linked = await first(
    tx
      .select({ id: connections.id })
      .from(connections)
      .where(
        and(
          eq(connections.serviceAccountId, serviceAccountId),
          eq(connections.status, "linked"),
          inArray(connections.provider, [...realBankProviderNames]),
        ),
      )
      .limit(1),
  );
  if (!linked) return false;
  await tx
    .update(serviceAccounts)
    .set({ status: "active", updatedAt: clock.now() })
    .where(eq(serviceAccounts.id, serviceAccountId));
  return true;
}
