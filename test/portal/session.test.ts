import { afterAll, describe, expect, test } from "bun:test";
import { asc, like } from "drizzle-orm";
import { createServiceAccount } from "../../src/accounts/service-accounts.ts";
import { sessionIdleMs } from "../../src/accounts/sessions.ts";
import type { Db } from "../../src/db/store.ts";
import { oneTimeSignInGraceMs } from "../../src/portal/routes/session-routes.ts";
import { createFakeClock } from "../support/fake-clock.ts";
import { portalClient, signedInOwner, testPassword } from "../support/portal.ts";
import { startTestServer } from "../support/server.ts";
import { createTestServices } from "../support/services.ts";

/** The per-address sign-in counters, by key (what the throttle counts). */
async function signInAddressKeys(db: Db): Promise<string[]> {
  const { rateLimitCounters } = db.t;
  const rows = await db
    .select({ key: rateLimitCounters.key })
    .from(rateLimitCounters)
    .where(like(rateLimitCounters.key, "sign-in:address:%"))
    .orderBy(asc(rateLimitCounters.key));
  return rows.map((row) => row.key);
}

const clock = createFakeClock();
const services = await createTestServices({ clock });
const server = startTestServer(services);
afterAll(() => server.stop());

describe("portal sign-in and sessions", () => {
  test("sign-in sets an HttpOnly SameSite=Strict session cookie and /me answers", async () => {
    const { client, email } = await signedInOwner(services, server.baseUrl);
    const me = await client.json<{ user: { email: string; isOperator: boolean } }>("GET", "/me");
    expect(me.status).toBe(200);
    expect(me.body.user).toMatchObject({ email, isOperator: false });
    const response = await portalClient(server.baseUrl).request("POST", "/session", {
      email,
      password: testPassword,
    });
    const cookie = response.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^svc_session=[A-Za-z0-9_-]{43};/);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Strict");
    expect(cookie).not.toContain("Secure");
  });

  test("with an https base URL the cookie is Secure and __Host- prefixed", async () => {
    const https = await createTestServices({
      clock,
      config: { baseUrl: "https://bank-api.example.com" },
    });
    const httpsServer = startTestServer(https);
    try {
      await createServiceAccount(https.db, clock, {
        email: "s@example.com",
        password: testPassword,
      });
      const response = await fetch(`${httpsServer.baseUrl}/portal/api/session`, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          Host: "bank-api.example.com",
          Origin: "https://bank-api.example.com",
        },
        body: JSON.stringify({ email: "s@example.com", password: testPassword }),
      });
      expect(response.status).toBe(201);
      const cookie = response.headers.get("set-cookie") ?? "";
      expect(cookie).toStartWith("__Host-svc_session=");
      expect(cookie).toContain("Secure");
    } finally {
      await httpsServer.stop();
    }
  });

  test("the portal API answers 401 session_required without a session", async () => {
    const response = await portalClient(server.baseUrl).json<{ error: { code: string } }>(
      "GET",
      "/me",
    );
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe("session_required");
  });

  test("a wrong password and an unknown e-mail get the same answer", async () => {
    await createServiceAccount(services.db, clock, {
      email: "known@example.com",
      password: testPassword,
    });
    const wrong = await portalClient(server.baseUrl).json("POST", "/session", {
      email: "known@example.com",
      password: "wrong password!",
    });
    const unknown = await portalClient(server.baseUrl).json("POST", "/session", {
      email: "nobody@example.com",
      password: "wrong password!",
    });
    expect(wrong).toEqual(unknown);
    expect(wrong.status).toBe(401);
  });

  test("behind a trusted reverse proxy, sign-in attempts count against the client's forwarded address, not the proxy's", async () => {
    const proxied = await createTestServices({
      clock,
      config: { trustedProxies: ["127.0.0.1/32"] },
    });
    const proxiedServer = startTestServer(proxied);
    const addressKeys = () => signInAddressKeys(proxied.db);
    try {
      const client = portalClient(proxiedServer.baseUrl);
      const attempt = { email: "nobody@example.com", password: "guess guess guess" };
      expect(
        (await client.request("POST", "/session", attempt, { "X-Forwarded-For": "203.0.113.7" }))
          .status,
      ).toBe(401);
      expect(
        (await client.request("POST", "/session", attempt, { "X-Forwarded-For": "198.51.100.2" }))
          .status,
      ).toBe(401);
      expect(await addressKeys()).toEqual([
        "sign-in:address:198.51.100.2",
        "sign-in:address:203.0.113.7",
      ]);
    } finally {
      await proxiedServer.stop();
      await proxied.database.close();
    }
    // Without trustedProxies the same header is ignored: the peer is counted.
    const direct = portalClient(server.baseUrl);
    await direct.request(
      "POST",
      "/session",
      { email: "nobody@example.com", password: "guess guess guess" },
      { "X-Forwarded-For": "203.0.113.7" },
    );
    expect(await signInAddressKeys(services.db)).toEqual(["sign-in:address:127.0.0.1"]);
  });

  test("sign-in is throttled after 10 attempts per e-mail in 15 minutes, with Retry-After", async () => {
    await createServiceAccount(services.db, clock, {
      email: "target@example.com",
      password: testPassword,
    });
    const client = portalClient(server.baseUrl);
    for (let i = 0; i < 10; i++) {
      expect(
        (
          await client.request("POST", "/session", {
            email: "target@example.com",
            password: "guess guess guess",
          })
        ).status,
      ).toBe(401);
    }
    const blocked = await client.request("POST", "/session", {
      email: "target@example.com",
      password: testPassword,
    });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
    clock.advance(15 * 60 * 1000);
    expect(
      (
        await client.request("POST", "/session", {
          email: "target@example.com",
          password: testPassword,
        })
      ).status,
    ).toBe(201);
  });

  test("a state-changing request from another origin is refused", async () => {
    const { client } = await signedInOwner(services, server.baseUrl);
    const response = await client.request("DELETE", "/session", undefined, {
      Origin: "https://evil.example",
    });
    expect(response.status).toBe(403);
    expect((await client.request("GET", "/me")).status).toBe(200);
    const noOrigin = await fetch(`${server.baseUrl}/portal/api/session`, {
      method: "DELETE",
      headers: { Cookie: client.cookie ?? "" },
    });
    expect(noOrigin.status).toBe(403);
  });

  test("DNS rebinding: Host evil.test with Origin http://evil.test and a valid session cookie is answered 421, reads and writes alike", async () => {
    const { client } = await signedInOwner(services, server.baseUrl);
    const rebound = { Host: "evil.test", Origin: "http://evil.test" };
    const write = await client.request("POST", "/keys", { name: "stolen" }, rebound);
    expect(write.status).toBe(421);
    expect(((await write.json()) as { error: { code: string } }).error.code).toBe(
      "misdirected_request",
    );
    expect((await client.request("GET", "/keys", undefined, rebound)).status).toBe(421);
    const keys = await client.json<{ data: unknown[] }>("GET", "/keys");
    expect(keys.body.data).toHaveLength(0);
  });

  test("Origin is compared with the configured base URL, not with the request's own Host", async () => {
    const { client } = await signedInOwner(services, server.baseUrl);
    const own = new URL(server.baseUrl);
    // Same server, but reached under another name that also resolves to it.
    const otherName = `svc.rebound.test:${own.port}`;
    const response = await client.request(
      "POST",
      "/keys",
      { name: "x" },
      { Host: otherName, Origin: `http://${otherName}` },
    );
    expect(response.status).toBe(421);
    const wrongOrigin = await client.request(
      "POST",
      "/keys",
      { name: "x" },
      {
        Origin: `http://${otherName}`,
      },
    );
    expect(wrongOrigin.status).toBe(403);
    expect((await client.request("POST", "/keys", { name: "ok" })).status).toBe(201);
  });

  test("current-password guesses are throttled like sign-in: after 10 wrong tries in 15 minutes the change answers 429, even with the right password, until the window frees", async () => {
    const { client } = await signedInOwner(services, server.baseUrl);
    const statuses: number[] = [];
    for (let i = 0; i < 15; i++) {
      const response = await client.request("POST", "/me/password", {
        currentPassword: `wrong guess ${i}`,
        newPassword: "a brand new password",
      });
      statuses.push(response.status);
    }
    expect(statuses).toEqual([...Array(10).fill(401), ...Array(5).fill(429)]);
    const right = { currentPassword: testPassword, newPassword: "a brand new password" };
    const throttled = await client.request("POST", "/me/password", right);
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get("retry-after"))).toBeGreaterThan(0);
    clock.advance(15 * 60 * 1000);
    expect((await client.request("POST", "/me/password", right)).status).toBe(200);
  });

  test("current-password guesses are also counted per client address: 100 in 15 minutes across users", async () => {
    clock.advance(15 * 60 * 1000); // earlier tests' attempts from this address leave the window
    const owners = await Promise.all(
      Array.from({ length: 11 }, () => signedInOwner(services, server.baseUrl)),
    );
    const statuses: number[] = [];
    for (const { client } of owners) {
      for (let i = 0; i < 10; i++) {
        const response = await client.request("POST", "/me/password", {
          currentPassword: "wrong guess",
          newPassword: "a brand new password",
        });
        statuses.push(response.status);
      }
    }
    expect(statuses.filter((status) => status === 401)).toHaveLength(100);
    expect(statuses.slice(100)).toEqual(Array(10).fill(429));
    clock.advance(15 * 60 * 1000);
  }, 60_000);

  test("Origin and Host must be the base URL's origin exactly: [::1] is not localhost; the loopback address the server listens on is its one alias", async () => {
    // Not the default base URL, which the test server would replace with its own address.
    const loopback = await createTestServices({
      clock,
      config: { baseUrl: "http://localhost:9999" },
    });
    const loopbackServer = startTestServer(loopback);
    try {
      const { port } = new URL(loopbackServer.baseUrl);
      const { client } = await signedInOwner(loopback, loopbackServer.baseUrl, {
        publicUrl: "http://localhost:9999",
      });
      // The test server listens on 127.0.0.1 at its own port, which is the alias.
      for (const [host, origin, status] of [
        ["localhost:9999", "http://localhost:9999", 201],
        [`127.0.0.1:${port}`, `http://127.0.0.1:${port}`, 201],
        ["localhost:9999", "http://[::1]:9999", 403],
        ["localhost:9999", `http://[::1]:${port}`, 403],
        ["localhost:9999", "http://127.0.0.1:9999", 403],
        ["localhost:9999", "https://localhost:9999", 403],
        [`[::1]:${port}`, `http://[::1]:${port}`, 421],
        ["[::1]:9999", "http://[::1]:9999", 421],
        ["127.0.0.1:1", "http://127.0.0.1:1", 421],
      ] as const) {
        const response = await client.request(
          "POST",
          "/keys",
          { name: "loop" },
          {
            Host: host,
            Origin: origin,
          },
        );
        expect({ host, origin, status: response.status }).toEqual({ host, origin, status });
      }
    } finally {
      await loopbackServer.stop();
      await loopback.database.close();
    }
  });

  test("sign-out ends the session", async () => {
    const { client } = await signedInOwner(services, server.baseUrl);
    const cookie = client.cookie;
    expect((await client.request("DELETE", "/session")).status).toBe(204);
    client.cookie = cookie;
    expect((await client.request("GET", "/me")).status).toBe(401);
  });

  test("a session idle for 12 hours has ended", async () => {
    const { client } = await signedInOwner(services, server.baseUrl);
    clock.advance(sessionIdleMs);
    expect((await client.request("GET", "/me")).status).toBe(401);
  });

  test("a one-time password must be changed before anything else; the change ends other sessions", async () => {
    const created = await createServiceAccount(services.db, clock, { email: "otp@example.com" });
    const password = created.oneTimePassword ?? "";
    const first = portalClient(server.baseUrl);
    const second = portalClient(server.baseUrl);
    await first.request("POST", "/session", { email: "otp@example.com", password });
    await second.request("POST", "/session", { email: "otp@example.com", password });
    expect(
      (await first.json<{ user: { mustChangePassword: boolean } }>("GET", "/me")).body.user
        .mustChangePassword,
    ).toBe(true);
    expect((await first.request("GET", "/operator/accounts")).status).toBe(403);
    const short = await first.json<{ error: { message: string } }>("POST", "/me/password", {
      currentPassword: password,
      newPassword: "short",
    });
    expect(short.status).toBe(400);
    const changed = await first.json("POST", "/me/password", {
      currentPassword: password,
      newPassword: "a much better password",
    });
    expect(changed.status).toBe(200);
    expect(
      (await first.json<{ user: { mustChangePassword: boolean } }>("GET", "/me")).body.user
        .mustChangePassword,
    ).toBe(false);
    expect((await second.request("GET", "/me")).status).toBe(401);
  });

  test("the first change right after a one-time-password sign-in does not ask for that password again; later, and once changed, the current password is required", async () => {
    const created = await createServiceAccount(services.db, clock, { email: "first@example.com" });
    const password = created.oneTimePassword ?? "";
    const fresh = portalClient(server.baseUrl);
    await fresh.request("POST", "/session", { email: "first@example.com", password });
    const changed = await fresh.json("POST", "/me/password", { newPassword: "my own password 1" });
    expect(changed.status).toBe(200);
    // Changed: from now on the current password is asked, as for any change.
    const again = await fresh.json<{ error: { message: string } }>("POST", "/me/password", {
      newPassword: "my own password 2",
    });
    expect(again.status).toBe(400);
    expect(again.body.error.message).toBe("currentPassword: required.");

    // A one-time-password session older than the grace period must give the password.
    const late = await createServiceAccount(services.db, clock, { email: "late@example.com" });
    const stale = portalClient(server.baseUrl);
    await stale.request("POST", "/session", {
      email: "late@example.com",
      password: late.oneTimePassword ?? "",
    });
    clock.advance(oneTimeSignInGraceMs);
    const refused = await stale.json<{ error: { message: string } }>("POST", "/me/password", {
      newPassword: "my own password 3",
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toBe("currentPassword: required.");
    const given = await stale.json("POST", "/me/password", {
      currentPassword: late.oneTimePassword,
      newPassword: "my own password 3",
    });
    expect(given.status).toBe(200);
  });

  test("operator pages are refused to account owners and list accounts for operators", async () => {
    const { client: owner } = await signedInOwner(services, server.baseUrl);
    expect((await owner.request("GET", "/operator/accounts")).status).toBe(403);
    const { client: operator } = await signedInOwner(services, server.baseUrl, {
      isOperator: true,
    });
    const accounts = await operator.json<{ data: { id: string }[] }>("GET", "/operator/accounts");
    expect(accounts.status).toBe(200);
    expect(accounts.body.data.length).toBeGreaterThan(1);
    const target = accounts.body.data[0]?.id;
    const updated = await operator.json<{ subscriptionStatus: string }>(
      "PATCH",
      `/operator/accounts/${target}`,
      {
        subscriptionStatus: "past_due",
        paymentFailed: true,
      },
    );
    expect(updated.body.subscriptionStatus).toBe("past_due");
    const bad = await operator.json<{ error: { code: string; message: string } }>(
      "PATCH",
      `/operator/accounts/${target}`,
      { status: "gold" },
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toStartWith("status:");
  });

  test("portal answers are never cached", async () => {
    const { client } = await signedInOwner(services, server.baseUrl);
    expect((await client.request("GET", "/me")).headers.get("cache-control")).toBe("no-store");
  });
});
