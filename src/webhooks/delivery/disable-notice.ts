// Spec 3/6: when an endpoint is disabled after 20 consecutive failures its owner is e-mailed.
// Every user of the owning account gets the notice (through the outbox, in the transaction
// that disables the endpoint, so the notice and the state change commit together).
import { asc, eq } from "drizzle-orm";
import type { Clock } from "../../core/clock.ts";
import type { Db } from "../../db/store.ts";
import { queueMail } from "../../mail/outbox.ts";

export async function queueDisabledNotice(
  tx: Db,
  clock: Clock,
  endpoint: { id: string; serviceAccountId: string; url: string },
  reason: string,
  disabledAt: Date,
): Promise<number> {
  const { users } = tx.t;
  const recipients = await tx
    .select({ email: users.email })
    .from(users)
    .where(eq(users.serviceAccountId, endpoint.serviceAccountId))
    .orderBy(asc(users.createdAt), asc(users.id));
  const body = [
    "Your webhook endpoint has been disabled and no further events will be sent to it.",
    "",
    `  Endpoint  ${endpoint.id}`,
    `  URL       ${endpoint.url}`,
    `  Reason    ${reason}`,
    `  Disabled  ${disabledAt.toISOString()}`,
    "",
    "Fix the receiver, then enable the endpoint again in the portal (or `svc endpoints enable`).",
    "Events raised while it was disabled are not replayed: read what changed from the API.",
  ].join("\n");
  for (const recipient of recipients) {
    await queueMail(tx, clock, {
      serviceAccountId: endpoint.serviceAccountId,
      to: recipient.email,
      subject: "Webhook endpoint disabled after 20 failed deliveries",
      body,
    });
  }
  return recipients.length;
}
