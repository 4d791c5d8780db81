// Operator routes over real HTTP: the mail outbox, and that operators never receive a secret.
import { afterAll, describe, expect, test } from "bun:test";
import { queueMail } from "../../src/mail/outbox.ts";
import { createFakeClock } from "../support/fake-clock.ts";
import { signedInOwner } from "../support/portal.ts";
import { startTestServer } from "../support/server.ts";
import { createTestServices } from "../support/services.ts";

const clock = createFakeClock();
const services = await createTestServices({ clock });
const server = startTestServer(services);
afterAll(() => server.stop());

interface Mail {
  id: string;
  serviceAccountId: string | null;
  to: string;
  subject: string;
  sentAt: string | null;
}

describe("portal: operator mail outbox", () => {
  test("operators read the outbox, newest first, filtered by account and unsent", async () => {
    const owner = await signedInOwner(services, server.baseUrl);
    const { client } = await signedInOwner(services, server.baseUrl, { isOperator: true });
    await queueMail(services.db, clock, {
      serviceAccountId: owner.accountId,
      to: owner.email,
      subject: "first",
      body: "one",
    });
    clock.advance(1000);
    await queueMail(services.db, clock, {
      serviceAccountId: null,
      to: "ops@example.com",
      subject: "second",
      body: "two",
    });
    const all = await client.json<{ data: Mail[] }>("GET", "/operator/mail");
    expect(all.status).toBe(200);
    expect(all.body.data.map((m) => m.subject)).toEqual(["second", "first"]);
    const mine = await client.json<{ data: Mail[] }>(
      "GET",
      `/operator/mail?account=${owner.accountId}&unsent=true&limit=5`,
    );
    expect(mine.body.data).toHaveLength(1);
    expect(mine.body.data[0]).toMatchObject({ to: owner.email, subject: "first", sentAt: null });
    const bad = await client.json<{ error: { message: string } }>("GET", "/operator/mail?limit=0");
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toStartWith("limit:");
    const badAccount = await client.json<{ error: { message: string } }>(
      "GET",
      "/operator/mail?account=x",
    );
    expect(badAccount.body.error.message).toBe("account: must be a service account id");
  });

  test("account owners cannot read the outbox", async () => {
    const { client } = await signedInOwner(services, server.baseUrl);
    expect((await client.request("GET", "/operator/mail")).status).toBe(403);
  });

  test("operator answers carry no secret: no password hash, key, or signing secret", async () => {
    const owner = await signedInOwner(services, server.baseUrl);
    const key = await owner.client.json<{ key: string }>("POST", "/keys", { name: "k" });
    const { client } = await signedInOwner(services, server.baseUrl, { isOperator: true });
    for (const path of ["/operator/accounts", "/operator/settings", "/operator/mail"]) {
      const text = await (await client.request("GET", path)).text();
      expect(text).not.toMatch(/hash|argon2|svk_|whsec_|masterKey/i);
      expect(text).not.toContain(key.body.key);
    }
  });
});

describe("portal: operator settings", () => {
  test("operators see the instance settings as configured: base URL and delivery source IP", async () => {
    const { client } = await signedInOwner(services, server.baseUrl, { isOperator: true });
    const settings = await client.json<{ baseUrl: string; deliverySourceIp: string | null }>(
      "GET",
      "/operator/settings",
    );
    expect(settings.status).toBe(200);
    // The test server's base URL is the address it listens on (test/support/server.ts).
    expect(settings.body.baseUrl).toBe(server.baseUrl);
    expect(settings.body.deliverySourceIp).toBeNull();
    const { client: owner } = await signedInOwner(services, server.baseUrl);
    expect((await owner.request("GET", "/operator/settings")).status).toBe(403);
  });
});
