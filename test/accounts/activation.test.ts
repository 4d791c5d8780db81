import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { updateServiceAccount } from "../../src/accounts/service-accounts.ts";
import { completeLink } from "../../src/banking/link.ts";
import { connectSandbox } from "../../src/banking/sandbox/connect.ts";
import type { Services } from "../../src/server/services.ts";
import { insertServiceAccount } from "../banking/helpers.ts";
import { createFakeClock } from "../support/fake-clock.ts";
import { createTestServices } from "../support/services.ts";
import { type SimplefinStub, startSimplefinStub } from "../support/simplefin-stub.ts";

let sf: SimplefinStub;
let services: Services;

beforeAll(async () => {
  sf = await startSimplefinStub();
  sf.accounts.push({
    id: "ACT-1",
    name: "Checking",
    currency: "USD",
    balance: "10.00",
    "balance-date": 1_768_000_000,
    transactions: [],
  });
  services = await createTestServices({
    clock: createFakeClock(),
    config: { providerCaFile: sf.caFile },
  });
});
afterAll(() => sf.stop());

async function accountStatus(id: string): Promise<string | undefined> {
  const { serviceAccounts } = services.db.t;
  const [row] = await services.db
    .select({ status: serviceAccounts.status })
    .from(serviceAccounts)
    .where(eq(serviceAccounts.id, id));
  return row?.status;
}

async function linkRealBank(serviceAccountId: string): Promise<void> {
  const result = await completeLink(services, {
    provider: "simplefin",
    serviceAccountId,
    setupToken: sf.setupToken(),
  });
  expect(result.status).toBe("linked");
}

describe("sandbox -> active when a real bank is linked and billing is set up", () => {
  test("bank linked first, then billing set up: active when billing arrives", async () => {
    const id = await insertServiceAccount(services);
    await linkRealBank(id);
    expect(await accountStatus(id)).toBe("sandbox");
    await updateServiceAccount(services.db, services.clock, id, { subscriptionStatus: "trialing" });
    expect(await accountStatus(id)).toBe("active");
  });

  test("billing set up first, then bank linked: active when the bank is linked", async () => {
    const id = await insertServiceAccount(services);
    await updateServiceAccount(services.db, services.clock, id, { subscriptionStatus: "active" });
    expect(await accountStatus(id)).toBe("sandbox");
    await linkRealBank(id);
    expect(await accountStatus(id)).toBe("active");
  });

  test("a sandbox connection never activates the account", async () => {
    const id = await insertServiceAccount(services);
    await connectSandbox(services, { serviceAccountId: id, seed: 7 });
    await updateServiceAccount(services.db, services.clock, id, { subscriptionStatus: "active" });
    expect(await accountStatus(id)).toBe("sandbox");
  });

  test("billing that is not set up (past_due) does not activate", async () => {
    const id = await insertServiceAccount(services);
    await linkRealBank(id);
    await updateServiceAccount(services.db, services.clock, id, { subscriptionStatus: "past_due" });
    expect(await accountStatus(id)).toBe("sandbox");
  });
});
