// `svc serve` wiring: the dispatcher and the mail sender run as background jobs of startService,
// so an endpoint disabled after 20 failures reaches its owner by SMTP (spec 3, 6).
import { describe, expect, test } from "bun:test";
import { startService } from "../../src/server/runtime.ts";
import { getEndpoint } from "../../src/webhooks/endpoints/records.ts";
import { acceptVerification, startReceiver } from "../support/receiver.ts";
import { cleanupAfterEach, startSmtp } from "../support/smtp.ts";
import {
  createWebhookSetup,
  raiseBalanceEvent,
  registerVerified,
  testCertificates,
} from "../support/webhooks.ts";

const cleanup = cleanupAfterEach();

describe("startService runs the webhook dispatcher and the mail sender", () => {
  test("events committed while serving are delivered, and a disabled endpoint's owner is e-mailed over SMTP", async () => {
    const smtp = await startSmtp();
    cleanup(() => smtp.close());
    const mails = smtp.received;
    const smtpPort = smtp.port;

    let status = 200;
    const receiver = startReceiver(
      (await testCertificates()).cert,
      acceptVerification(() => new Response(null, { status })),
    );
    cleanup(() => receiver.stop());
    const setup = await createWebhookSetup({
      config: { smtpUrl: `smtp://127.0.0.1:${smtpPort}`, host: "127.0.0.1", port: 0 },
    });
    cleanup(() => setup.close());
    const { endpoint } = await registerVerified(setup, receiver);
    const running = await startService(setup.services);
    cleanup(() => running.stop());

    const before = receiver.requests.length;
    await raiseBalanceEvent(setup);
    setup.services.outbox.notify();
    await receiver.waitFor(before + 1);

    status = 500;
    for (let i = 0; i < 20; i++) await raiseBalanceEvent(setup);
    setup.services.outbox.notify();
    for (let i = 0; i < 500 && mails.length === 0; i++) await Bun.sleep(20);
    expect((await getEndpoint(setup.services.db, { endpointId: endpoint.id })).status).toBe(
      "disabled",
    );
    expect(mails).toHaveLength(1);
    expect(mails[0]?.to).toEqual([setup.ownerEmail]);
    expect(mails[0]?.data).toContain("Webhook endpoint disabled");
    expect(mails[0]?.data).toContain(endpoint.id);
  });
});
