// The owner's overview over real HTTP: entitlement in plain words (what an API call gets now,
// and why), the delivery source IP, the base URL and the API base.
import { afterAll, describe, expect, test } from "bun:test";
import { updateServiceAccount } from "../../src/accounts/service-accounts.ts";
import { createFakeClock } from "../support/fake-clock.ts";
import { portalClient, signedInOwner } from "../support/portal.ts";
import { startTestServer } from "../support/server.ts";
import { createTestServices } from "../support/services.ts";

const clock = createFakeClock();
const services = await createTestServices({
  clock,
  config: { baseUrl: "http://bank-api.example.test:8080", deliverySourceIp: "203.0.113.7" },
});
const server = startTestServer(services);
const publicUrl = "http://bank-api.example.test:8080";
afterAll(() => server.stop());

interface Overview {
  account: { id: string; status: string; subscriptionStatus: string };
  access: { allowed: boolean; httpStatus: number; code?: string; summary: string; reason: string };
  baseUrl: string;
  apiBaseUrl: string;
  deliverySourceIp: string | null;
  setup: { activeKeys: number; endpoints: number; verifiedEndpoints: number; connections: number };
}

describe("portal: overview", () => {
  test("shows the account, why API calls are served, the source IP and the API base URL", async () => {
    const { client, accountId } = await signedInOwner(services, server.baseUrl, { publicUrl });
    const overview = await client.json<Overview>("GET", "/overview");
    expect(overview.status).toBe(200);
    expect(overview.body).toMatchObject({
      account: { id: accountId, status: "sandbox", subscriptionStatus: "none" },
      access: {
        allowed: true,
        httpStatus: 200,
        summary: "API calls with a valid key are served.",
        reason: "The account is entitled because the account status is sandbox.",
      },
      baseUrl: "http://bank-api.example.test:8080",
      apiBaseUrl: "http://bank-api.example.test:8080/v1",
      deliverySourceIp: "203.0.113.7",
      setup: { activeKeys: 0, endpoints: 0, verifiedEndpoints: 0, connections: 0 },
    });
    await client.request("POST", "/keys", { name: "one" });
    await client.request("POST", "/connections/sandbox", {});
    const after = await client.json<Overview>("GET", "/overview");
    expect(after.body.setup).toMatchObject({ activeKeys: 1, connections: 1 });
  });

  test("a lapsed subscription is explained: 403 subscription_lapsed and what to do", async () => {
    const { client, accountId } = await signedInOwner(services, server.baseUrl, { publicUrl });
    await updateServiceAccount(services.db, clock, accountId, {
      status: "lapsed",
      subscriptionStatus: "past_due",
      paymentFailed: true,
    });
    const { body } = await client.json<Overview>("GET", "/overview");
    expect(body.access).toMatchObject({
      allowed: false,
      httpStatus: 403,
      code: "subscription_lapsed",
      summary: "API calls are refused with 403 subscription_lapsed.",
    });
    expect(body.access.reason).toContain("renewal payment");
  });

  test("without a session the overview answers 401", async () => {
    expect((await portalClient(server.baseUrl, publicUrl).request("GET", "/overview")).status).toBe(
      401,
    );
  });
});
