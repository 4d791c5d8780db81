// Consents that never lapse unannounced (spec 3 "Connection"; docs/providers.md "Consent"): a
// real bank's consent ends (Enable Banking: the session's valid_until). The owner is e-mailed
// (mail outbox) and shown a portal banner 7 days and 1 day before, each warning once per
// consent. "Once" holds across instances and restarts: a warning is recorded by a conditional
// UPDATE of its column (null -> now, for the consent end that was read) in the transaction that
// queues the mail, so two runs can never both send it. A renewed consent clears both columns.
import { and, asc, eq, gt, isNull, lte, notInArray, or } from "drizzle-orm";
import type { Config } from "../config/config.ts";
import type { BackgroundJob } from "../core/background-job.ts";
import type { Clock } from "../core/clock.ts";
import { dayMs } from "../core/dates.ts";
import type { Db } from "../db/store.ts";
import { queueMail } from "../mail/outbox.ts";
import { type ScheduledJobDeps, startScheduledJob } from "../scheduling/scheduled-job.ts";

/** Every hour on the hour: a warning is at most an hour late. */
const consentWarningSchedule = "0 * * * *";

export type ConsentWarning = "7d" | "1d";
const warningLeadMs: Record<ConsentWarning, number> = { "7d": 7 * dayMs, "1d": dayMs };

export interface SentWarning {
  connectionId: string;
  warning: ConsentWarning;
  recipients: number;
}

/** Which warning is due for a consent ending at `expiresAt`, given what was already sent. */
export function dueWarning(
  now: Date,
  expiresAt: Date,
  sent: { warned7dAt: Date | null; warned1dAt: Date | null },
): ConsentWarning | undefined {
  const left = expiresAt.getTime() - now.getTime();
  if (left <= 0) return undefined;
  // Both thresholds passed (a consent given for less than a day, or the job was down): only
  // the nearer warning is worth sending.
  if (left <= warningLeadMs["1d"]) return sent.warned1dAt ? undefined : "1d";
  if (left <= warningLeadMs["7d"]) return sent.warned7dAt ? undefined : "7d";
  return undefined;
}

function warningMail(
  connection: { id: string; institution: string; consentExpiresAt: Date },
  warning: ConsentWarning,
  baseUrl: string,
): { subject: string; body: string } {
  const when = warning === "1d" ? "tomorrow" : "in 7 days";
  return {
    subject: `Your bank consent for ${connection.institution} ends ${when}`,
    body: [
      `The consent your bank gave for the connection to ${connection.institution} ends ${when}.`,
      "",
      `  Connection  ${connection.id}`,
      `  Bank        ${connection.institution}`,
      `  Ends        ${connection.consentExpiresAt.toISOString()}`,
      "",
      "After it ends no new data comes from the bank and the connection moves to `expired`.",
      `Renew it before then: in the portal (${baseUrl}/#/connections, Renew) or with`,
      `\`svc connections renew ${connection.id}\`. Renewing keeps the connection, its accounts`,
      "and their transactions.",
    ].join("\n"),
  };
}

/** Sends every warning that is due now; returns what was sent. */
export async function sendConsentWarnings(
  db: Db,
  clock: Clock,
  baseUrl: string,
): Promise<SentWarning[]> {
  const now = clock.now();
  const { connections } = db.t;
  const candidates = await db
    .select()
    .from(connections)
    .where(
      and(
        gt(connections.consentExpiresAt, now),
        lte(connections.consentExpiresAt, new Date(now.getTime() + warningLeadMs["7d"])),
        notInArray(connections.status, ["expired", "rejected"]),
        or(isNull(connections.consentWarned7dAt), isNull(connections.consentWarned1dAt)),
      ),
    )
    .orderBy(asc(connections.consentExpiresAt), asc(connections.id));
  const sent: SentWarning[] = [];
  for (const row of candidates) {
    const expiresAt = row.consentExpiresAt;
    if (!expiresAt) continue;
    const warning = dueWarning(now, expiresAt, {
      warned7dAt: row.consentWarned7dAt,
      warned1dAt: row.consentWarned1dAt,
    });
    if (!warning) continue;
    const recipients = await db.write(async (tx) => {
      const { users } = tx.t;
      const column =
        warning === "1d" ? tx.t.connections.consentWarned1dAt : tx.t.connections.consentWarned7dAt;
      const claimed = await tx
        .update(tx.t.connections)
        .set(warning === "1d" ? { consentWarned1dAt: now } : { consentWarned7dAt: now })
        .where(
          and(
            eq(tx.t.connections.id, row.id),
            eq(tx.t.connections.consentExpiresAt, expiresAt),
            isNull(column),
          ),
        )
        .returning({ id: tx.t.connections.id });
      // Another run (maybe another instance) sent it first.
      if (claimed.length === 0) return undefined;
      const mail = warningMail({ ...row, consentExpiresAt: expiresAt }, warning, baseUrl);
      const owners = await tx
        .select({ email: users.email })
        .from(users)
        .where(eq(users.serviceAccountId, row.serviceAccountId))
        .orderBy(asc(users.createdAt), asc(users.id));
      for (const owner of owners)
        await queueMail(tx, clock, {
          serviceAccountId: row.serviceAccountId,
          to: owner.email,
          ...mail,
        });
      return owners.length;
    });
    if (recipients !== undefined) sent.push({ connectionId: row.id, warning, recipients });
  }
  return sent;
}

/** The hourly consent-warning job of `svc serve`: one run per tick across instances. */
export interface ConsentWarningJobDeps extends ScheduledJobDeps {
  config: Pick<Config, "baseUrl">;
}

export function startConsentWarningJob(
  services: ConsentWarningJobDeps,
  options: { onMailQueued?: () => void; schedule?: string } = {},
): BackgroundJob {
  return startScheduledJob(services, {
    name: "consent-warnings",
    schedule: options.schedule ?? consentWarningSchedule,
    async run() {
      const sent = await sendConsentWarnings(services.db, services.clock, services.config.baseUrl);
      if (sent.length === 0) return;
      services.log.info("consent warnings sent", { count: sent.length });
      options.onMailQueued?.();
    },
  });
}
