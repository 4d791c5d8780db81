// The mail outbox (spec 3/6: the owner is told when an endpoint is disabled): every e-mail the
// service means to send is written here, inside the transaction of the change it reports, whether
// or not SMTP is configured, so an operator can always read what was (or would have been) sent.
import { and, desc, eq, isNull } from "drizzle-orm";
import type { Clock } from "../core/clock.ts";
import { newId } from "../core/ids.ts";
import type { Db } from "../db/store.ts";

export interface MailInput {
  serviceAccountId: string | null;
  to: string;
  subject: string;
  body: string;
}

/** Queues one e-mail; call it with the transaction of the change the e-mail reports. */
export async function queueMail(tx: Db, clock: Clock, mail: MailInput): Promise<string> {
  const id = newId();
  const now = clock.now();
  await tx.write((inner) =>
    inner.insert(inner.t.mailOutbox).values({
      id,
      serviceAccountId: mail.serviceAccountId,
      toAddress: mail.to,
      subject: mail.subject,
      body: mail.body,
      createdAt: now,
      nextAttemptAt: now,
    }),
  );
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

export async function listMail(
  db: Db,
  filter: { serviceAccountId?: string; unsentOnly?: boolean; limit?: number } = {},
): Promise<MailView[]> {
  const { mailOutbox } = db.t;
  const conditions = [
    filter.serviceAccountId ? eq(mailOutbox.serviceAccountId, filter.serviceAccountId) : undefined,
    filter.unsentOnly ? isNull(mailOutbox.sentAt) : undefined,
  ].filter((c) => c !== undefined);
  const rows = await db
    .select()
    .from(mailOutbox)
    .where(conditions.length ? and(...conditions) : undefined)
    .orderBy(desc(mailOutbox.createdAt), desc(mailOutbox.id))
    .limit(filter.limit ?? 100);
  return rows.map((row) => ({
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
