// `svc endpoints ...`, `svc deliveries list` and `svc mail list` end to end through the CLI,
// against a real HTTPS receiver trusted through SVC_DELIVERY_CA_FILE.
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
  cwd = await installedDir(makeTempDir("svc-cli-endpoints"));
  env = { SVC_UNSAFE_ALLOW_PRIVATE_TARGETS: "true", SVC_DELIVERY_CA_FILE: pki.caFile };
});
afterAll(() => receiver.stop());

const svc = (...argv: string[]) => runSvc(argv, { cwd, env });

describe("svc endpoints", () => {
  test("add, list, send-code, verify, test, rotate-secret, pause, resume, remove; deliveries list shows every attempt", async () => {
    const account = await svc("accounts", "create", "--email", "cli-owner@example.com", "--json");
    expect(account.code).toBe(0);
    const accountId = account.json<{ id: string }>().id;

    const added = await svc(
      "endpoints",
      "add",
      "--account",
      accountId,
      "--url",
      receiver.url("/cli"),
      "--description",
      "main",
      "--json",
    );
    expect(added.code).toBe(0);
    const { endpoint, signing_secret: signingSecret } = added.json<{
      endpoint: { id: string; verified: boolean };
      signing_secret: string;
    }>();
    expect(signingSecret).toMatch(/^whsec_/);
    expect(endpoint.verified).toBe(false);
    const id = endpoint.id;

    const listed = await svc("endpoints", "list", "--account", accountId);
    expect(listed.stdout).toContain(id);
    expect(listed.stdout).toMatch(/active\s+no\s+0/);
    expect(listed.stdout).not.toContain(signingSecret);

    const sent = await svc("endpoints", "send-code", id);
    expect(sent.code).toBe(0);
    expect(sent.stdout).toMatch(/webhook\.verify sent .*: delivered/);
    expect(sent.stdout).toMatch(/HTTP 200 in \d+ ms/);
    const code = lastVerificationCode(receiver);
    expect(sent.stdout).not.toContain(code);

    const wrong = await svc("endpoints", "verify", id, "AAAAAAAA");
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain("error: The verification code is not correct; 4 attempts left.");

    const verified = await svc("endpoints", "verify", id, code, "--json");
    expect(verified.json<{ verified: boolean }>().verified).toBe(true);

    const tested = await svc("endpoints", "test", id, "--json");
    expect(tested.json()).toMatchObject({ ok: true, status_code: 200, type: "webhook.test" });

    const rotated = await svc("endpoints", "rotate-secret", id);
    expect(rotated.stdout).toContain("signing secret  whsec_");
    expect(rotated.stdout).not.toContain(signingSecret);
    expect(rotated.stdout).toContain("shown only now");

    expect((await svc("endpoints", "pause", id)).stdout).toContain("state           paused");
    expect((await svc("endpoints", "resume", id)).stdout).toContain("state           active");
    const enable = await svc("endpoints", "enable", id);
    expect(enable.code).toBe(1);
    expect(enable.stderr).toContain("only a disabled endpoint can be enabled");

    // An account event written by another process is pending until a server sends it.
    const services = await openServices(
      loadConfig({ env: await engineEnvFor(cwd), cwd, flags: { dataDir: `${cwd}/data` } }),
      {
        log: silentLogger,
      },
    );
    const recorded = await services.db.write((tx) =>
      recordAccountEvent(tx, services.clock, {
        serviceAccountId: accountId,
        type: "account.balance.updated",
        data: {
          account_id: "5b0c1f7e-8f2a-4d59-9a51-0d6f3c2b1a90",
          fetched_at: new Date().toISOString(),
        },
      }),
    );
    await services.database.close();

    const log = await svc("deliveries", "list", "--endpoint", id, "--json");
    const deliveries =
      log.json<
        {
          kind: string;
          status: string;
          event_id: string;
          next_attempt_at: string | null;
          attempts: { number: number; at: string; status_code: number; duration_ms: number }[];
        }[]
      >();
    expect(deliveries.map((d) => d.kind).sort()).toEqual(["event", "test", "verify"]);
    const pending = deliveries.find((d) => d.kind === "event");
    expect(pending).toMatchObject({ status: "pending", event_id: recorded.eventId, attempts: [] });
    expect(pending?.next_attempt_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    const test = deliveries.find((d) => d.kind === "test");
    expect(test?.attempts).toEqual([
      expect.objectContaining({ number: 1, status_code: 200, duration_ms: expect.any(Number) }),
    ]);
    const byEvent = await svc("deliveries", "list", "--event", recorded.eventId);
    expect(byEvent.stdout).toContain("(no attempt yet)");
    expect(byEvent.stdout).toContain("next attempt");

    const removed = await svc("endpoints", "remove", id);
    expect(removed.stdout).toContain(`endpoint ${id} removed`);
    expect((await svc("endpoints", "list", "--account", accountId)).stdout).toContain("(none)");
  });

  test("a refused URL prints the reason and exits 1", async () => {
    const account = await svc("accounts", "create", "--email", "cli-refused@example.com", "--json");
    const refused = await svc(
      "endpoints",
      "add",
      "--account",
      account.json<{ id: string }>().id,
      "--url",
      "http://hooks.example.com/",
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("error: url must use https://");
  });

  test("an unknown endpoint is not found; a bad --limit is a usage error", async () => {
    const missing = await svc("endpoints", "test", "00000000-0000-4000-8000-000000000000");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("No webhook endpoint");
    const usage = await svc("deliveries", "list", "--limit", "0");
    expect(usage.code).toBe(2);
  });

  test("svc mail list shows the outbox (empty here)", async () => {
    const mail = await svc("mail", "list", "--json");
    expect(mail.code).toBe(0);
    expect(mail.json()).toEqual([]);
  });
});
