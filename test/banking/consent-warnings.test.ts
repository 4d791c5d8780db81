import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { createServiceAccount } from "../../src/accounts/service-accounts.ts";
import {
  dueWarning,
  sendConsentWarnings,
  startConsentWarningJob,
} from "../../src/banking/consent-warnings.ts";
import { startLink } from "../../src/banking/link.ts";
import { dayMs } from "../../src/core/dates.ts";
import { openDatabase } from "../../src/db/open.ts";
import { listMail } from "../../src/mail/outbox.ts";
import type { Services } from "../../src/server/services.ts";
import type { EnableBankingStub } from "../support/enable-banking-stub.ts";
import { createFakeClock } from "../support/fake-clock.ts";
import { portalClient, testPassword } from "../support/portal.ts";
import { createRealBankServices } from "../support/real-bank-services.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { insertConnection } from "./helpers.ts";

const clock = createFakeClock("2026-05-04T12:00:00.000Z");
let services: Services;
let eb: EnableBankingStub;
let stopStubs: () => void;
let server: TestServer;

beforeAll(async () => {
  ({ services, eb, stopStubs } = await createRealBankServices({ clock }));
  server = startTestServer(services);
});
afterAll(async () => {
  await server.stop();
  stopStubs();
});

async function ownerWithConnection(consentDays: number) {
  const email = `owner-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const created = await createServiceAccount(services.db, clock, { email, password: testPassword });
  const connectionId = await insertConnection(services, created.account.id, "linked", {
    provider: "enable_banking",
    institution: "Stub Bank",
    consentExpiresAt: new Date(clock.now().getTime() + consentDays * dayMs),
  });
  return { accountId: created.account.id, email, connectionId };
}

const mailTo = async (accountId: string) =>
  (await listMail(services.db, { serviceAccountId: accountId })).map((m) => m.subject).reverse();

describe("consent expiry warnings", () => {
  test("the owner is e-mailed 7 days and 1 day before the consent ends, each warning once, and sees a portal banner", async () => {
    const owner = await ownerWithConnection(10);
    // Signed in afresh each time: the fake clock moves days, past a session's idle limit.
    const banner = async () => {
      const portal = portalClient(server.baseUrl);
      await portal.request("POST", "/session", { email: owner.email, password: testPassword });
      return (
        await portal.json<{ consentsEnding: { id: string; consentExpiresAt: string }[] }>(
          "GET",
          "/overview/attention",
        )
      ).body.consentsEnding;
    };

    await sendConsentWarnings(services.db, clock, services.config.baseUrl);
    expect(await mailTo(owner.accountId)).toEqual([]);
    expect(await banner()).toEqual([]);

    clock.advance(3 * dayMs + 60_000); // 7 days minus a minute before the end
    await sendConsentWarnings(services.db, clock, services.config.baseUrl);
    await sendConsentWarnings(services.db, clock, services.config.baseUrl);
    expect(await mailTo(owner.accountId)).toEqual([
      "Your bank consent for Stub Bank ends in 7 days",
    ]);
    expect((await banner()).map((b) => b.id)).toEqual([owner.connectionId]);
    const [mail] = await listMail(services.db, { serviceAccountId: owner.accountId });
    expect(mail?.to).toBe(owner.email);
    expect(mail?.body).toContain(`svc connections renew ${owner.connectionId}`);

    clock.advance(5 * dayMs); // 2 days before
    await sendConsentWarnings(services.db, clock, services.config.baseUrl);
    expect(await mailTo(owner.accountId)).toHaveLength(1);

    clock.advance(dayMs); // 1 day minus a minute before
    await sendConsentWarnings(services.db, clock, services.config.baseUrl);
    await sendConsentWarnings(services.db, clock, services.config.baseUrl);
    expect(await mailTo(owner.accountId)).toEqual([
      "Your bank consent for Stub Bank ends in 7 days",
      "Your bank consent for Stub Bank ends tomorrow",
    ]);

    clock.advance(dayMs); // ended: no more warnings, no banner
    await sendConsentWarnings(services.db, clock, services.config.baseUrl);
    expect(await mailTo(owner.accountId)).toHaveLength(2);
    expect(await banner()).toEqual([]);
  });

  test("instances sharing the database send each warning once between them, also after a restart", async () => {
    const owner = await ownerWithConnection(6);
    const other = openDatabase(services.config);
    try {
      const runs = await Promise.all([
        sendConsentWarnings(services.db, clock, services.config.baseUrl),
        sendConsentWarnings(other.db, clock, services.config.baseUrl),
        sendConsentWarnings(services.db, clock, services.config.baseUrl),
      ]);
      const sentForOwner = runs
        .flat()
        .filter((s) => s.connectionId === owner.connectionId && s.warning === "7d");
      expect(sentForOwner).toHaveLength(1);
      // A restarted instance reads what was recorded and sends nothing again.
      await sendConsentWarnings(other.db, clock, services.config.baseUrl);
      expect(await mailTo(owner.accountId)).toEqual([
        "Your bank consent for Stub Bank ends in 7 days",
      ]);
    } finally {
      await other.close();
    }
  });

  test("the hourly job sends due warnings on its schedule", async () => {
    const owner = await ownerWithConnection(3);
    const worker = startConsentWarningJob(services, { schedule: "* * * * * *" });
    try {
      for (let i = 0; i < 50 && (await mailTo(owner.accountId)).length === 0; i++)
        await Bun.sleep(100);
    } finally {
      await worker.stop();
    }
    expect(await mailTo(owner.accountId)).toEqual([
      "Your bank consent for Stub Bank ends in 7 days",
    ]);
  });

  test("a consent shorter than a day gets only the 1-day warning; a warned consent is not warned again", () => {
    const now = new Date("2026-01-01T00:00:00Z");
    const none = { warned7dAt: null, warned1dAt: null };
    expect(dueWarning(now, new Date("2026-01-01T20:00:00Z"), none)).toBe("1d");
    expect(dueWarning(now, new Date("2026-01-05T00:00:00Z"), none)).toBe("7d");
    expect(dueWarning(now, new Date("2026-01-05T00:00:00Z"), { ...none, warned7dAt: now })).toBe(
      undefined,
    );
    expect(dueWarning(now, new Date("2026-01-09T00:00:00Z"), none)).toBe(undefined);
    expect(dueWarning(now, new Date("2025-12-31T00:00:00Z"), none)).toBe(undefined);
  });
});

describe("Enable Banking consent validity", () => {
  test("the validity asked of the bank is capped at its maximum_consent_validity", async () => {
    const owner = await ownerWithConnection(100);
    eb.maximumConsentValidity = 30 * 86_400;
    await startLink(services, owner.accountId, {
      provider: "enable_banking",
      country: "FI",
      bank: "Stub Bank",
      consentDays: 90,
    });
    expect(eb.lastValidUntil).toBe(new Date(clock.now().getTime() + 30 * dayMs).toISOString());
    // Below the bank's maximum, the days asked for stand.
    await startLink(services, owner.accountId, {
      provider: "enable_banking",
      country: "FI",
      bank: "Stub Bank",
      consentDays: 20,
    });
    expect(eb.lastValidUntil).toBe(new Date(clock.now().getTime() + 20 * dayMs).toISOString());
    const { connections } = services.db.t;
    await services.db.write((tx) =>
      tx.delete(connections).where(eq(connections.serviceAccountId, owner.accountId)),
    );
  });
});
