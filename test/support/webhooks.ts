// Fixtures for webhook tests: services with the test CA as deliveryCaFile, an account, the
// webhook context, and helpers to register and verify endpoints against loopback receivers.
import { afterAll, afterEach, beforeAll } from "bun:test";
import { createServiceAccount } from "../../src/accounts/service-accounts.ts";
import type { Config } from "../../src/config/config.ts";
import { ApiError } from "../../src/core/errors.ts";
import { silentLogger } from "../../src/log/log.ts";
import type { Resolver } from "../../src/net/resolver.ts";
import type { Services } from "../../src/server/services.ts";
import { type WebhookContext, webhookContext } from "../../src/webhooks/delivery/context.ts";
import { createDispatcher, type Dispatcher } from "../../src/webhooks/delivery/dispatcher.ts";
import { senderFromConfig } from "../../src/webhooks/delivery/sender.ts";
import { sendVerificationCode, verifyEndpoint } from "../../src/webhooks/delivery/verification.ts";
import {
  type EndpointWithSecret,
  registerEndpoint,
} from "../../src/webhooks/endpoints/registration.ts";
import { recordAccountEvent } from "../../src/webhooks/events/write.ts";
import { createFakeClock, type FakeClock } from "./fake-clock.ts";
import { type CertFiles, createTestPki, loopbackNames, type TestPki } from "./pki.ts";
import { type Receiver, startReceiver } from "./receiver.ts";
import { createTestServices } from "./services.ts";

let shared: Promise<{ pki: TestPki; cert: CertFiles }> | undefined;

/** One CA and one loopback certificate per test process. */
export function testCertificates(): Promise<{ pki: TestPki; cert: CertFiles }> {
  shared ??= (async () => {
    const pki = await createTestPki();
    return { pki, cert: await pki.issue(loopbackNames) };
  })();
  return shared;
}

export interface WebhookSetup {
  services: Services;
  ctx: WebhookContext;
  clock: FakeClock;
  accountId: string;
  ownerEmail: string;
  close(): Promise<void>;
}

let accounts = 0;

export async function createWebhookSetup(
  options: {
    config?: Partial<Config>;
    resolve?: Resolver;
    timeoutMs?: number;
    clock?: FakeClock;
  } = {},
): Promise<WebhookSetup> {
  const { pki } = await testCertificates();
  const clock = options.clock ?? createFakeClock();
  const services = await createTestServices({
    clock,
    config: { deliveryCaFile: pki.caFile, ...options.config },
  });
  const ownerEmail = `owner${++accounts}@example.com`;
  const { account } = await createServiceAccount(services.db, clock, {
    email: ownerEmail,
    password: "correct horse battery staple",
  });
  const resolve = options.resolve ?? (async () => ["127.0.0.1"]);
  const sender = senderFromConfig(services.config, clock, {
    resolve,
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
  });
  const ctx = webhookContext(services, { resolve, sender });
  return {
    services,
    ctx,
    clock,
    accountId: account.id,
    ownerEmail,
    async close() {
      sender.close();
      await services.database.close();
    },
  };
}

/** The code carried by the latest webhook.verify the receiver got. */
export function lastVerificationCode(receiver: Receiver): string {
  for (let i = receiver.requests.length - 1; i >= 0; i--) {
    const event = JSON.parse(receiver.requests[i]?.body ?? "{}");
    if (event.type === "webhook.verify") return event.data.code;
  }
  throw new Error("the receiver got no webhook.verify");
}

/** Registers an endpoint and verifies it through a real webhook.verify send. */
export async function registerVerified(
  setup: WebhookSetup,
  receiver: Receiver,
  path = "/hooks",
): Promise<EndpointWithSecret> {
  const registered = await registerEndpoint(setup.ctx, {
    serviceAccountId: setup.accountId,
    url: receiver.url(path),
  });
  const ref = { endpointId: registered.endpoint.id };
  const sent = await sendVerificationCode(setup.ctx, ref);
  if (!sent.ok) throw new Error(`verification send failed: ${sent.error}`);
  const endpoint = await verifyEndpoint(setup.ctx, ref, lastVerificationCode(receiver));
  return { endpoint, signingSecret: registered.signingSecret };
}

/** Records an account.balance.updated event for the setup's account (the bank-data side's job). */
export async function raiseBalanceEvent(setup: WebhookSetup) {
  return setup.services.db.write((tx) =>
    recordAccountEvent(tx, setup.clock, {
      serviceAccountId: setup.accountId,
      type: "account.balance.updated",
      data: {
        account_id: "5b0c1f7e-8f2a-4d59-9a51-0d6f3c2b1a90",
        fetched_at: setup.clock.now().toISOString(),
      },
    }),
  );
}

/**
 * A suite's fixtures: one loopback receiver for the whole file, and setups that are closed
 * after each test.
 */
export function webhookSuite(): {
  receiver: () => Receiver;
  setup: (options?: Parameters<typeof createWebhookSetup>[0]) => Promise<WebhookSetup>;
} {
  let receiver: Receiver | undefined;
  const setups: WebhookSetup[] = [];
  beforeAll(async () => {
    receiver = startReceiver((await testCertificates()).cert);
  });
  afterAll(() => receiver?.stop());
  afterEach(async () => {
    for (const s of setups.splice(0)) await s.close();
  });
  return {
    receiver: () => receiver as Receiver,
    async setup(options = {}) {
      const created = await createWebhookSetup(options);
      setups.push(created);
      return created;
    },
  };
}

/**
 * A dispatcher on the setup's database and fake clock that runs only when asked (`runDue`, or
 * the outbox signal once started); the caller stops it.
 */
export function testDispatcher(
  setup: WebhookSetup,
  options: { concurrency?: number; outbox?: boolean } = {},
): Dispatcher {
  const concurrency = options.concurrency ?? 4;
  return createDispatcher({
    db: setup.services.db,
    clock: setup.clock,
    log: silentLogger,
    masterKey: setup.services.masterKey,
    sender: senderFromConfig(setup.services.config, setup.clock, { resolve: setup.ctx.resolve }),
    ...(options.outbox === false ? {} : { outbox: setup.services.outbox }),
    concurrency,
    endpointConcurrency: concurrency,
    schedule: false,
    stopGraceMs: 50,
  });
}

/** The ApiError `work` throws (sync or async); fails the test when it throws nothing. */
export async function apiErrorOf(work: () => unknown): Promise<ApiError> {
  try {
    await work();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error("expected an ApiError");
}
