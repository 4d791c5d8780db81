// The mail outbox (DESIGN.md "Disabling"): every e-mail the service means to send is written
// here, inside the transaction of the change it reports, whether or not SMTP is configured,
// so an operator can always read what was (or would have been) sent.
import { and, desc, eq, isNull } from "drizzle-orm";
import type { Clock } from "../clock.ts";
import type { DbOrTx } from "../db/open.ts";
import { mailOutbox } from "../db/schema.ts";
import { newId } from "../ids.ts";

export interface MailInput {
  serviceAccountId: string | null;
  to: string;
  subject: string;
  body: string;
}

export function queueMail(tx: DbOrTx, clock: Clock, mail: MailInput): string {
  const id = newId();
  const now = clock.now();
  tx.insert(mailOutbox)
    .values({
      id,
      serviceAccountId: mail.serviceAccountId,
      toAddress: mail.to,
      subject: mail.subject,
      body: mail.body,
      createdAt: now,
      nextAttemptAt: now,
    })
    .run();
  return id;
}

export interface MailView {
  id: string;
  serviceAccountId: string | null;
  to: string;
  subject: string;
  body: string;
  createdAt: string;
  sentAt: string | null;
  attempts: number;
  lastError: string | null;
  /** When the sender tries again; null once sent or given up. */
  nextAttemptAt: string | null;
}

export function listMail(
  db: DbOrTx,
  filter: { serviceAccountId?: string; unsentOnly?: boolean; limit?: number } = {},
): MailView[] {
  const conditions = [
    filter.serviceAccountId ? eq(mailOutbox.serviceAccountId, filter.serviceAccountId) : undefined,
    filter.unsentOnly ? isNull(mailOutbox.sentAt) : undefined,
  ].filter((c) => c !== undefined);
  return db
    .select()
    .from(mailOutbox)
    .where(conditions.length ? and(...conditions) : undefined)
    .orderBy(desc(mailOutbox.createdAt), desc(mailOutbox.id))
    .limit(filter.limit ?? 100)
    .all()
    .map((row) => ({
      id: row.id,
      serviceAccountId: row.serviceAccountId,
      to: row.toAddress,
      subject: row.subject,
      body: row.body,
      createdAt: row.createdAt.toISOString(),
      sentAt: row.sentAt?.toISOString() ?? null,
      attempts: row.attempts,
      lastError: row.lastError,
      nextAttemptAt: row.nextAttemptAt?.toISOString() ?? null,
    }));
}
