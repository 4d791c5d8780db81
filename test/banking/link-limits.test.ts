import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import {
  abandonedLinkMs,
  linkAttemptsPerHour,
  maxActiveConnections,
} from "../../src/banking/link-limits.ts";
import type { ConnectionStatus } from "../../src/db/schema.ts";
import { pruneHistory } from "../../src/jobs/retention.ts";
import type { Services } from "../../src/server/services.ts";
import { createFakeClock } from "../support/fake-clock.ts";
import { signedInOwner } from "../support/portal.ts";
import { createRealBankServices } from "../support/real-bank-services.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import type { SimplefinStub } from "../support/simplefin-stub.ts";
import { insertConnection } from "./helpers.ts";

const clock = createFakeClock("2026-03-02T10:00:00.000Z");
let sf: SimplefinStub;
let services: Services;
let server: TestServer;

let stopStubs: () => void;

beforeAll(async () => {
  ({ services, sf, stopStubs } = await createRealBankServices({ clock }));
  server = startTestServer(services);
});
afterAll(async () => {
  await server.stop();
  stopStubs();
});

function insertRealBankAttempt(
  serviceAccountId: string,
  values: { status: ConnectionStatus; providerSecret?: string; lastSyncedAt?: Date },
): Promise<string> {
  const { status, ...rest } = values;
  return insertConnection(services, serviceAccountId, status, {
    provider: "enable_banking",
    institution: "Stub Bank",
    ...rest,
  });
}

describe("connection and link-attempt limits", () => {
  test(`an account holds at most ${maxActiveConnections} connections that are not rejected or expired: the next link answers 409 limit_exceeded`, async () => {
    const owner = await signedInOwner(services, server.baseUrl);
    for (let i = 0; i < maxActiveConnections - 1; i++)
      await insertConnection(services, owner.accountId, i % 2 === 0 ? "linked" : "error");
    // Rejected and expired connections do not count.
    await insertConnection(services, owner.accountId, "rejected");
    await insertConnection(services, owner.accountId, "expired");
    const tenth = await owner.client.json("POST", "/connections/sandbox", {});
    expect(tenth.status).toBe(201);
    const refusals = [
      await owner.client.json("POST", "/connections/sandbox", {}),
      await owner.client.json("POST", "/bank-links/enable-banking", {
        country: "FI",
        bank: "Stub Bank",
      }),
      await owner.client.json("POST", "/bank-links/simplefin", { setup_token: sf.setupToken() }),
    ];
    for (const refused of refusals) {
      expect(refused.status).toBe(409);
      expect(refused.body).toEqual({
        error: {
          code: "limit_exceeded",
          message: expect.stringContaining(`already has ${maxActiveConnections} bank connections`),
        },
      });
    }
    // Nothing was claimed at the Bridge for the refused token.
    expect(sf.claims).toBe(0);
  });

  test(`link attempts are throttled to ${linkAttemptsPerHour} an hour per account: 429 with Retry-After, allowed again once the hour has passed`, async () => {
    const owner = await signedInOwner(services, server.baseUrl);
    const start = () =>
      owner.client.request("POST", "/bank-links/enable-banking", {
        country: "FI",
        bank: "Stub Bank",
      });
    for (let i = 0; i < linkAttemptsPerHour; i++) {
      expect((await start()).status).toBe(201);
      clock.advance(60_000);
      // Declined attempts do not hold a place under the connection limit.
      const { connections } = services.db.t;
      await services.db.write((tx) =>
        tx
          .update(connections)
          .set({ status: "rejected" })
          .where(eq(connections.serviceAccountId, owner.accountId)),
      );
    }
    const refused = await start();
    expect(refused.status).toBe(429);
    expect((await refused.json()).error.code).toBe("rate_limited");
    // The first attempt leaves the window 60 minutes after it was made, 50 minutes from now.
    expect(refused.headers.get("retry-after")).toBe(String(50 * 60));
    clock.advance(50 * 60_000);
    expect((await start()).status).toBe(201);
  });

  test("the retention job removes link attempts that never linked once they are a day old; linked ones and claimed SimpleFIN accesses stay", async () => {
    const owner = await signedInOwner(services, server.baseUrl);
    const waiting = await insertRealBankAttempt(owner.accountId, { status: "awaiting_auth" });
    const failed = await insertRealBankAttempt(owner.accountId, { status: "error" });
    const declined = await insertRealBankAttempt(owner.accountId, { status: "rejected" });
    const claimed = await insertRealBankAttempt(owner.accountId, {
      status: "initiated",
      providerSecret: "sb1.sealed",
    });
    const linked = await insertRealBankAttempt(owner.accountId, {
      status: "linked",
      providerSecret: "sb1.sealed",
      lastSyncedAt: clock.now(),
    });
    const ids = async () => {
      const { connections } = services.db.t;
      return (
        await services.db
          .select({ id: connections.id })
          .from(connections)
          .where(eq(connections.serviceAccountId, owner.accountId))
      )
        .map((r) => r.id)
        .sort();
    };
    // Earlier tests' declined attempts are older: they go first.
    clock.advance(abandonedLinkMs - 60_000);
    await pruneHistory(services.db, clock, 30);
    expect(await ids()).toEqual([waiting, failed, declined, claimed, linked].sort());
    clock.advance(120_000);
    const pruned = await pruneHistory(services.db, clock, 30);
    expect(pruned.abandonedLinks).toBeGreaterThanOrEqual(3);
    expect(await ids()).toEqual([claimed, linked].sort());
  });
});
