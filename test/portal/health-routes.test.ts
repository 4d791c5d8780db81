// The portal over real HTTP: what needs the owner (disabled endpoints, connections waiting on
// them), where to update payment details, the quick start shown until dismissed, and the
// operator's Create account.
import { afterAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { createServiceAccount, updateServiceAccount } from "../../src/accounts/service-accounts.ts";
import { createFakeClock } from "../support/fake-clock.ts";
import { portalClient, signedInOwner, testPassword } from "../support/portal.ts";
import { startTestServer } from "../support/server.ts";
import { createTestServices } from "../support/services.ts";

const clock = createFakeClock();
const services = await createTestServices({
  clock,
  config: { unsafeAllowPrivateTargets: true },
});
const server = startTestServer(services);
const billed = await createTestServices({
  clock,
  config: { billingUrl: "https://billing.example.com/pay?from=svc" },
});
const billedServer = startTestServer(billed);
afterAll(async () => {
  await server.stop();
  await billedServer.stop();
});

interface Attention {
  disabledEndpoints: { id: string; disabledAt: string | null; disabledReason: string | null }[];
  connections: { id: string; status: string; institution: string }[];
  consentsEnding: { id: string; consentExpiresAt: string }[];
}

describe("portal: what needs the owner (health at a glance)", () => {
  test("a disabled endpoint and connections in expired, suspended, error or awaiting_auth are listed; the set-up counts a disabled endpoint as not receiving", async () => {
    const { client } = await signedInOwner(services, server.baseUrl);
    const empty = await client.json<Attention>("GET", "/overview/attention");
    expect(empty.body).toEqual({ disabledEndpoints: [], connections: [], consentsEnding: [] });

    const added = await client.json<{ endpoint: { id: string } }>("POST", "/endpoints", {
      url: "https://127.0.0.1/svc",
    });
    const endpointId = added.body.endpoint.id;
    const { webhookEndpoints, connections } = services.db.t;
    await services.db.write((tx) =>
      tx
        .update(webhookEndpoints)
        .set({
          status: "disabled",
          verifiedAt: clock.now(),
          disabledAt: clock.now(),
          disabledReason: "20 consecutive failed deliveries",
        })
        .where(eq(webhookEndpoints.id, endpointId)),
    );
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const made = await client.json<{ id: string }>("POST", "/connections/sandbox", {});
      ids.push(made.body.id);
    }
    const statuses = ["expired", "suspended", "error", "awaiting_auth", "linked"] as const;
    for (const [i, status] of statuses.entries())
      await services.db.write((tx) =>
        tx
          .update(connections)
          .set({ status })
          .where(eq(connections.id, ids[i] as string)),
      );

    const { body } = await client.json<Attention>("GET", "/overview/attention");
    expect(body.disabledEndpoints).toEqual([
      {
        id: endpointId,
        url: "https://127.0.0.1/svc",
        description: null,
        disabledAt: clock.now().toISOString(),
        disabledReason: "20 consecutive failed deliveries",
      },
    ] as never);
    expect(body.connections.map((c) => c.status)).toEqual([
      "expired",
      "suspended",
      "error",
      "awaiting_auth",
    ]);
    const overview = await client.json<{
      attention: Attention;
      setup: { verifiedEndpoints: number; receivingEndpoints: number; disabledEndpoints: number };
    }>("GET", "/overview");
    expect(overview.body.attention).toEqual(body);
    expect(overview.body.setup).toMatchObject({
      verifiedEndpoints: 1,
      receivingEndpoints: 0,
      disabledEndpoints: 1,
    });
  });

  test("another account's trouble is never shown", async () => {
    const other = await signedInOwner(services, server.baseUrl);
    const { body } = await other.client.json<Attention>("GET", "/overview/attention");
    expect(body).toEqual({ disabledEndpoints: [], connections: [], consentsEnding: [] });
  });
});

describe("portal: where to update payment details", () => {
  test("with billingUrl set, the overview links to it", async () => {
    const { client, accountId } = await signedInOwner(billed, billedServer.baseUrl);
    await updateServiceAccount(billed.db, clock, accountId, {
      status: "lapsed",
      subscriptionStatus: "past_due",
      paymentFailed: true,
    });
    const { body } = await client.json<{ billing: unknown }>("GET", "/overview");
    expect(body.billing).toEqual({
      url: "https://billing.example.com/pay?from=svc",
      operatorEmails: [],
    });
  });

  test("without it, the overview names the operators to contact", async () => {
    await createServiceAccount(services.db, clock, {
      email: "ops@example.com",
      password: testPassword,
      isOperator: true,
    });
    const { client } = await signedInOwner(services, server.baseUrl);
    const { body } = await client.json<{ billing: unknown }>("GET", "/overview");
    expect(body.billing).toEqual({ url: null, operatorEmails: ["ops@example.com"] });
  });
});

describe("portal: quick start (getting started)", () => {
  test("an owner sees it from the first sign-in until dismissed, then on every later session too", async () => {
    const owner = await signedInOwner(services, server.baseUrl);
    expect((await owner.client.json<{ quickStart: boolean }>("GET", "/me")).body.quickStart).toBe(
      true,
    );
    expect((await owner.client.request("POST", "/me/quick-start/dismiss")).status).toBe(204);
    expect((await owner.client.json<{ quickStart: boolean }>("GET", "/me")).body.quickStart).toBe(
      false,
    );
    const again = portalClient(server.baseUrl);
    await again.request("POST", "/session", { email: owner.email, password: testPassword });
    expect((await again.json<{ quickStart: boolean }>("GET", "/me")).body.quickStart).toBe(false);
  });

  test("an operator's own account is offered it too, until dismissed", async () => {
    const operator = await signedInOwner(services, server.baseUrl, { isOperator: true });
    expect(
      (await operator.client.json<{ quickStart: boolean }>("GET", "/me")).body.quickStart,
    ).toBe(true);
    expect((await operator.client.request("POST", "/me/quick-start/dismiss")).status).toBe(204);
    expect(
      (await operator.client.json<{ quickStart: boolean }>("GET", "/me")).body.quickStart,
    ).toBe(false);
  });
});

describe("portal: operator creates an account", () => {
  test("the password is generated and shown once; the new user must change it at first sign-in", async () => {
    const operator = await signedInOwner(services, server.baseUrl, { isOperator: true });
    const created = await operator.client.json<{
      account: { id: string; name: string; status: string; users: { email: string }[] };
      oneTimePassword: string;
    }>("POST", "/operator/accounts", {
      email: "new-owner@example.com",
      name: "New owner Ltd",
      status: "active",
    });
    expect(created.status).toBe(201);
    expect(created.body.account).toMatchObject({
      name: "New owner Ltd",
      status: "active",
      users: [{ email: "new-owner@example.com" }],
    });
    expect(created.body.oneTimePassword.length).toBeGreaterThanOrEqual(12);

    const newcomer = portalClient(server.baseUrl);
    const signIn = await newcomer.request("POST", "/session", {
      email: "new-owner@example.com",
      password: created.body.oneTimePassword,
    });
    expect(signIn.status).toBe(201);
    const me = await newcomer.json<{ user: { mustChangePassword: boolean } }>("GET", "/me");
    expect(me.body.user.mustChangePassword).toBe(true);

    const again = await operator.client.json<{ error: { code: string } }>(
      "POST",
      "/operator/accounts",
      { email: "new-owner@example.com" },
    );
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("conflict");
  });

  test("an owner who is not an operator cannot create accounts", async () => {
    const owner = await signedInOwner(services, server.baseUrl);
    const refused = await owner.client.request("POST", "/operator/accounts", {
      email: "sneaky@example.com",
    });
    expect(refused.status).toBe(403);
  });
});
