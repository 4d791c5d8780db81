// Sends the mail outbox over SMTP (nodemailer) when `smtpUrl` is configured, with retries.
// Rows are claimed with a short lease, so a crash mid-send retries rather than loses; a mail
// that still fails after the last retry stays in the outbox with its error for the operator.
import { Cron } from "croner";
import { and, asc, eq, isNull, lte } from "drizzle-orm";
import type { BackgroundJob } from "../core/background-job.ts";
import type { Clock } from "../core/clock.ts";
import type { Row } from "../db/schema.ts";
import type { Db } from "../db/store.ts";
import type { Logger } from "../log/log.ts";

/** Waits after the 1st, 2nd, ... failed attempt; after the last one the mail is given up. */
export const mailRetryDelaysMs = [
  60_000,
  5 * 60_000,
  15 * 60_000,
  60 * 60_000,
  3 * 60 * 60_000,
  6 * 60 * 60_000,
  12 * 60 * 60_000,
] as const;
const leaseMs = 2 * 60_000;
const batchSize = 20;

export interface OutgoingMail {
  from: string;
  to: string;
  subject: string;
  text: string;
}

export interface MailTransport {
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

export function smtpTransport(smtpUrl: string): MailTransport {
  // Loaded only where SMTP is configured: nodemailer's modules were a few per cent of every
  // start's CPU. `require` keeps this synchronous; the bundler carries the package.
  const nodemailer = require("nodemailer") as typeof import("nodemailer");
  const transporter = nodemailer.createTransport({
    url: smtpUrl,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  });
  return {
    async send(mail) {
      await transporter.sendMail(mail);
    },
    close: () => transporter.close(),
  };
}

export interface MailSender extends BackgroundJob {
  /** Send what is due soon (called after queueing mail in this process). */
  wake(): void;
  /** Sends everything due now; resolves with the number of mails attempted (tests). */
  runDue(): Promise<number>;
}

export interface MailSenderOptions {
  db: Db;
  clock: Clock;
  log: Logger;
  from: string;
  transport: MailTransport;
  /** Tick every 5 seconds for retries and mail queued by other processes (default true). */
  schedule?: boolean;
}

export function createMailSender(options: MailSenderOptions): MailSender {
  const { db, clock, log, transport } = options;
  let running: Promise<number> | undefined;
  let again = false;
  let stopped = false;

  const { mailOutbox } = db.t;

  function claim(): Promise<Row<"mailOutbox">[]> {
    const now = clock.now();
    return db.write(async (tx) => {
      const due = await tx
        .select()
        .from(mailOutbox)
        .where(and(isNull(mailOutbox.sentAt), lte(mailOutbox.nextAttemptAt, now)))
        .orderBy(asc(mailOutbox.nextAttemptAt), asc(mailOutbox.id))
        .limit(batchSize);
      for (const row of due) {
        await tx
          .update(mailOutbox)
          .set({ nextAttemptAt: new Date(now.getTime() + leaseMs) })
          .where(eq(mailOutbox.id, row.id));
      }
      return due;
    });
  }

  async function sendBatch(): Promise<number> {
    let attempted = 0;
    for (;;) {
      const rows = stopped ? [] : await claim();
      if (rows.length === 0) return attempted;
      for (const row of rows) {
        attempted++;
        const attempts = row.attempts + 1;
        try {
          await transport.send({
            from: options.from,
            to: row.toAddress,
            subject: row.subject,
            text: row.body,
          });
          await db.write((tx) =>
            tx
              .update(mailOutbox)
              .set({ sentAt: clock.now(), attempts, nextAttemptAt: null, lastError: null })
              .where(eq(mailOutbox.id, row.id)),
          );
          log.info("mail sent", { mailId: row.id });
        } catch (error) {
          const delay = mailRetryDelaysMs[attempts - 1];
          const message = error instanceof Error ? error.message : String(error);
          await db.write((tx) =>
            tx
              .update(mailOutbox)
              .set({
                attempts,
                lastError: message,
                nextAttemptAt: delay === undefined ? null : new Date(clock.now().getTime() + delay),
              })
              .where(eq(mailOutbox.id, row.id)),
          );
          log.warn(delay === undefined ? "mail given up" : "mail not sent; will retry", {
            mailId: row.id,
            attempts,
            error: message,
          });
        }
      }
    }
  }

  function runDue(): Promise<number> {
    if (running !== undefined) {
      again = true;
      return running;
    }
    running = (async () => {
      let total = 0;
      try {
        do {
          again = false;
          total += await sendBatch();
        } while (again && !stopped);
      } catch (error) {
        log.error("mail sender failed", { error });
      } finally {
        running = undefined;
      }
      return total;
    })();
    return running;
  }

  const cron =
    options.schedule === false
      ? undefined
      : new Cron("*/5 * * * * *", { protect: true }, () => {
          void runDue();
        });

  return {
    name: "mail",
    wake: () => {
      void runDue();
    },
    runDue,
    async stop() {
      stopped = true;
      cron?.stop();
      await running;
      transport.close();
    },
  };
}
