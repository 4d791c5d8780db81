// A disabled service account keeps a read-only portal (docs/decisions.md): its users may sign
// in and read, with a clear notice, but nothing that creates or changes keys, endpoints or
// connections works, and open sessions see the change on their next request. Through real HTTP.
import { afterAll, describe, expect, test } from "bun:test";
import { updateServiceAccount } from "../../src/accounts/service-accounts.ts";
import { createFakeClock } from "../support/fake-clock.ts";
import { portalClient, signedInOwner, testPassword } from "../support/portal.ts";
import { startTestServer } from "../support/server.ts";
import { createTestServices } from "../support/services.ts";

const clock = createFakeClock();
const services = await createTestServices({ clock });
const server = startTestServer(services);
afterAll(() => server.stop());

const someId = "0190a0b0-0000-7000-8000-000000000001";

/** Every owner route that creates or changes something (the refusal comes before the route). */
const changes: [string, string, unknown][] = [
  ["POST", "/keys", { name: "after disabling" }],
  ["POST", `/keys/${someId}/revoke`, undefined],
  ["POST", "/endpoints", { url: "https://hooks.example.com/in" }],
  ["PATCH", `/endpoints/${someId}`, { description: "x" }],
  ["DELETE", `/endpoints/${someId}`, undefined],
  ["POST", `/endpoints/${someId}/send-code`, undefined],
  ["POST", `/endpoints/${someId}/verify`, { code: "ABCDEFGH" }],
  ["POST", `/endpoints/${someId}/test`, undefined],
  ["POST", `/endpoints/${someId}/rotate-secret`, undefined],
  ["POST", `/endpoints/${someId}/enable`, undefined],
  ["POST", `/endpoints/${someId}/deliveries/${someId}/resend`, undefined],
  ["POST", "/connections/sandbox", {}],
  ["POST", `/connections/${someId}/sync`, undefined],
  ["POST", "/bank-links/simplefin", { setupToken: "x" }],
  ["DELETE", `/bank-links/${someId}`, undefined],
];

describe("a disabled service account has a read-only portal", () => {
  test("an open session: reads still answer; every change is 403 account_disabled saying why", async () => {
    const owner = await signedInOwner(services, server.baseUrl);
    const before = await owner.client.json<{ key: string }>("POST", "/keys", { name: "before" });
    expect(before.status).toBe(201);
    await updateServiceAccount(services.db, clock, owner.accountId, { disabled: true });

    for (const path of ["/keys", "/endpoints", "/connections", "/overview"]) {
      expect((await owner.client.request("GET", path)).status).toBe(200);
    }
    for (const [method, path, body] of changes) {
      const answer = await owner.client.json<{ error: { code: string; message: string } }>(
        method,
        path,
        body,
      );
      expect({ method, path, status: answer.status }).toEqual({ method, path, status: 403 });
      expect(answer.body.error.code).toBe("account_disabled");
      expect(answer.body.error.message).toContain("This account is disabled");
    }
    const keys = await owner.client.json<{ data: { name: string }[] }>("GET", "/keys");
    expect(keys.body.data.map((k) => k.name)).toEqual(["before"]);
  });

  test("a fresh sign-in succeeds, and /me and the overview carry the notice", async () => {
    const owner = await signedInOwner(services, server.baseUrl);
    await updateServiceAccount(services.db, clock, owner.accountId, { disabled: true });
    const client = portalClient(server.baseUrl);
    const signIn = await client.request("POST", "/session", {
      email: owner.email,
      password: testPassword,
    });
    expect(signIn.status).toBe(201);
    const me = await client.json<{ account: { disabled: boolean; notice: string | null } }>(
      "GET",
      "/me",
    );
    expect(me.status).toBe(200);
    expect(me.body.account.disabled).toBe(true);
    expect(me.body.account.notice).toContain("Contact the operator");
    const overview = await client.json<{ account: { disabled: boolean } }>("GET", "/overview");
    expect(overview.body.account.disabled).toBe(true);
    expect((await client.request("POST", "/keys", { name: "no" })).status).toBe(403);
    // Signing out and changing the password still work: they change nothing of the account's.
    expect((await client.request("DELETE", "/session")).status).toBe(204);
  });

  test("an active account's /me says so, without a notice", async () => {
    const owner = await signedInOwner(services, server.baseUrl);
    const me = await owner.client.json<{ account: { disabled: boolean; notice: string | null } }>(
      "GET",
      "/me",
    );
    expect(me.body.account).toMatchObject({ disabled: false, notice: null });
  });

  test("open sessions see re-enabling on their next request too", async () => {
    const owner = await signedInOwner(services, server.baseUrl);
    await updateServiceAccount(services.db, clock, owner.accountId, { disabled: true });
    expect((await owner.client.request("POST", "/keys", { name: "refused" })).status).toBe(403);
    await updateServiceAccount(services.db, clock, owner.accountId, { disabled: false });
    expect((await owner.client.request("POST", "/keys", { name: "allowed" })).status).toBe(201);
  });

  test("an operator whose own account is disabled keeps the operator pages, so accounts can be re-enabled", async () => {
    const operator = await signedInOwner(services, server.baseUrl, { isOperator: true });
    const owner = await signedInOwner(services, server.baseUrl);
    await updateServiceAccount(services.db, clock, operator.accountId, { disabled: true });
    await updateServiceAccount(services.db, clock, owner.accountId, { disabled: true });
    const reenabled = await operator.client.json<{ disabled: boolean }>(
      "PATCH",
      `/operator/accounts/${owner.accountId}`,
      { disabled: false },
    );
    expect(reenabled.status).toBe(200);
    expect(reenabled.body.disabled).toBe(false);
    expect((await owner.client.request("POST", "/keys", { name: "back" })).status).toBe(201);
    expect((await operator.client.request("POST", "/keys", { name: "own" })).status).toBe(403);
  });
});
