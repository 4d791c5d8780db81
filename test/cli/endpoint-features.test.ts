// `svc endpoints add --events`, `svc endpoints update`, `svc endpoints resend` and
// `svc deliveries retry` through the CLI, against a real HTTPS receiver.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadConfig } from "../../src/config/config.ts";
import { silentLogger } from "../../src/log/log.ts";
import { openServices } from "../../src/server/services.ts";
import { recordAccountEvent } from "../../src/webhooks/events/write.ts";
import { installedDir, runSvc } from "../support/cli.ts";
import { engineEnvFor } from "../support/engine.ts";
import { type Receiver, startReceiver } from "../support/receiver.ts";
import { makeTempDir } from "../support/temp.ts";
import { lastVerificationCode, testCertificates } from "../support/webhooks.ts";

let receiver: Receiver;
let cwd: string;
let env: Record<string, string>;

beforeAll(async () => {
  const { pki, cert } = await testCertificates();
  receiver = startReceiver(cert);
  cwd = await installedDir(makeTempDir("svc-cli-endpoint-features"));
  env = { SVC_UNSAFE_ALLOW_PRIVATE_TARGETS: "true", SVC_DELIVERY_CA_FILE: pki.caFile };
});
afterAll(() => receiver.stop());

const svc = (...argv: string[]) => runSvc(argv, { cwd, env });

async function raiseBalanceEvent(accountId: string) {
  const services = await openServices(
    loadConfig({ env: await engineEnvFor(cwd), cwd, flags: { dataDir: `${cwd}/data` } }),
    { log: silentLogger },
  );
  try {
    return await services.db.write((tx) =>
      recordAccountEvent(tx, services.clock, {
        serviceAccountId: accountId,
        type: "account.balance.updated",
        data: {
          account_id: "5b0c1f7e-8f2a-4d59-9a51-0d6f3c2b1a90",
          fetched_at: new Date().toISOString(),
        },
      }),
    );
  } finally {
    await services.database.close();
  }
}

describe("svc endpoints: event filter, resend, retry", () => {
  test("add --events and update --events set the filter; a typo is a usage error (exit 2) naming it", async () => {
    const account = await svc("accounts", "create", "--email", "filter@example.com", "--json");
    const accountId = account.json<{ id: string }>().id;
    const typo = await svc(
      "endpoints",
      "add",
      "--account",
      accountId,
      "--url",
      receiver.url("/f"),
      "--events",
      "account.balance.updated,account.balanse.updated",
    );
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("--events: Unknown event type account.balanse.updated");
    const added = await svc(
      "endpoints",
      "add",
      "--account",
      accountId,
      "--url",
      receiver.url("/f"),
      "--events",
      "connection.status.changed, account.balance.updated",
    );
    expect(added.code).toBe(0);
    expect(added.stdout).toContain(
      "event types     account.balance.updated, connection.status.changed (webhook.verify and webhook.test always)",
    );
    const id = (added.stdout.match(/^endpoint (\S+)/m) as RegExpMatchArray)[1] as string;
    const all = await svc("endpoints", "update", id, "--events", "all");
    expect(all.code).toBe(0);
    expect(all.stdout).toContain("event types     all");
    const nothing = await svc("endpoints", "update", id);
    expect(nothing.code).toBe(2);
    expect((await svc("endpoints", "update", id, "--events", "webhook.test")).code).toBe(2);
  });

  test("resend queues the event again as a manual delivery; retry brings a pending one forward and refuses a finished one", async () => {
    const account = await svc("accounts", "create", "--email", "resend@example.com", "--json");
    const accountId = account.json<{ id: string }>().id;
    const added = await svc(
      "endpoints",
      "add",
      "--account",
      accountId,
      "--url",
      receiver.url("/r"),
    );
    const id = (added.stdout.match(/^endpoint (\S+)/m) as RegExpMatchArray)[1] as string;
    const event = await raiseBalanceEvent(accountId);
    const unverified = await svc("endpoints", "resend", id, event.eventId);
    expect(unverified.code).toBe(1);
    expect(unverified.stderr).toContain("only to an active and verified endpoint");

    expect((await svc("endpoints", "send-code", id)).code).toBe(0);
    expect((await svc("endpoints", "verify", id, lastVerificationCode(receiver))).code).toBe(0);
    const resent = await svc("endpoints", "resend", id, event.eventId);
    expect(resent.code).toBe(0);
    expect(resent.stdout).toMatch(
      new RegExp(
        `event ${event.eventId} queued again for endpoint ${id} as delivery \\S+ \\(manual\\)`,
      ),
    );
    const log = await svc("deliveries", "list", "--endpoint", id);
    expect(log.stdout).toContain("(account.balance.updated, event, manual resend)");

    const deliveryId = (resent.stdout.match(/as delivery (\S+)/) as RegExpMatchArray)[1] as string;
    const retried = await svc("deliveries", "retry", deliveryId);
    expect(retried.code).toBe(0);
    expect(retried.stdout).toContain(`delivery ${deliveryId}  pending  next attempt`);

    const tested = await svc("endpoints", "test", id);
    expect(tested.code).toBe(0);
    const finished = (
      await svc("deliveries", "list", "--endpoint", id, "--status", "succeeded")
    ).stdout.match(/^delivery (\S+)/m) as RegExpMatchArray;
    const refused = await svc("deliveries", "retry", finished[1] as string);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("only a pending delivery can be retried now");
    expect((await svc("deliveries", "retry")).code).not.toBe(0);
  });
});
