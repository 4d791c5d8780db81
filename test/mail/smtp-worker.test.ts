// The mail outbox and its SMTP sender (nodemailer) against a real SMTP server on loopback.
import { describe, expect, test } from "bun:test";
import { silentLogger } from "../../src/log/log.ts";
import { listMail, queueMail } from "../../src/mail/outbox.ts";
import { createMailSender, mailRetryDelaysMs, smtpTransport } from "../../src/mail/smtp-sender.ts";
import { freePort } from "../support/binary.ts";
import { createFakeClock } from "../support/fake-clock.ts";
import { createTestServices } from "../support/services.ts";
import { cleanupAfterEach, startSmtp } from "../support/smtp.ts";

const cleanup = cleanupAfterEach();

async function smtpServer(port = 0) {
  const smtp = await startSmtp(port);
  cleanup(() => smtp.close());
  return smtp;
}

async function setup(smtpPort: number) {
  const clock = createFakeClock();
  const services = await createTestServices({ clock });
  cleanup(() => services.database.close());
  const worker = createMailSender({
    db: services.db,
    clock,
    log: silentLogger,
    from: "svc@localhost.localdomain",
    transport: smtpTransport(`smtp://127.0.0.1:${smtpPort}`),
    schedule: false,
  });
  cleanup(() => worker.stop());
  const queue = () =>
    queueMail(services.db, clock, {
      serviceAccountId: null,
      to: "owner@example.com",
      subject: "Webhook endpoint disabled",
      body: "Your endpoint was disabled.",
    });
  return { services, clock, worker, queue };
}

describe("mail outbox and SMTP sender", () => {
  test("a queued mail is sent over SMTP and marked sent; the row stays for the operator", async () => {
    const smtp = await smtpServer();
    const { services, worker, queue } = await setup(smtp.port);
    await queue();
    expect(await worker.runDue()).toBe(1);
    expect(smtp.received).toHaveLength(1);
    expect(smtp.received[0]).toMatchObject({
      from: "svc@localhost.localdomain",
      to: ["owner@example.com"],
    });
    expect(smtp.received[0]?.data).toContain("Subject: Webhook endpoint disabled");
    expect(smtp.received[0]?.data).toContain("Your endpoint was disabled.");
    const [row] = await listMail(services.db);
    expect(row?.sentAt).not.toBeNull();
    expect(row?.attempts).toBe(1);
    expect(await worker.runDue()).toBe(0);
  });

  test("while SMTP is down the mail is retried on a schedule and sent once it is back", async () => {
    const port = await freePort();
    const { services, clock, worker, queue } = await setup(port);
    await queue();
    expect(await worker.runDue()).toBe(1);
    let [row] = await listMail(services.db);
    expect(row).toMatchObject({ sentAt: null, attempts: 1 });
    expect(row?.lastError).toBeTruthy();
    expect(row?.nextAttemptAt).toBe(
      new Date(clock.now().getTime() + mailRetryDelaysMs[0]).toISOString(),
    );
    expect(await worker.runDue()).toBe(0);

    const smtp = await smtpServer(port);
    clock.advance(mailRetryDelaysMs[0]);
    expect(await worker.runDue()).toBe(1);
    [row] = await listMail(services.db);
    expect(row).toMatchObject({ attempts: 2, lastError: null, nextAttemptAt: null });
    expect(row?.sentAt).not.toBeNull();
    expect(smtp.received).toHaveLength(1);
  });

  test("after the last retry the mail is given up but kept with its error", async () => {
    const port = await freePort();
    const { services, clock, worker, queue } = await setup(port);
    await queue();
    await worker.runDue();
    for (const delay of mailRetryDelaysMs) {
      clock.advance(delay);
      expect(await worker.runDue()).toBe(1);
    }
    const [row] = await listMail(services.db);
    expect(row).toMatchObject({ sentAt: null, nextAttemptAt: null, attempts: 8 });
    expect(row?.lastError).toBeTruthy();
    clock.advance(7 * 24 * 60 * 60_000);
    expect(await worker.runDue()).toBe(0);
  });
});
