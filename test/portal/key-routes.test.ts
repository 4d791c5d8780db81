// Portal API keys over real HTTP: the full key once, listing without it, revocation scoped to
// the signed-in account.
import { afterAll, describe, expect, test } from "bun:test";
import { createFakeClock } from "../support/fake-clock.ts";
import { portalClient, signedInOwner } from "../support/portal.ts";
import { startTestServer } from "../support/server.ts";
import { createTestServices } from "../support/services.ts";

const clock = createFakeClock();
const services = await createTestServices({ clock });
const server = startTestServer(services);
afterAll(() => server.stop());

interface KeyView {
  id: string;
  name: string;
  prefix: string;
  status: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

describe("portal: API keys", () => {
  test("creating a key answers the full key once; the list never holds it", async () => {
    const { client } = await signedInOwner(services, server.baseUrl);
    const created = await client.json<{ key: string; apiKey: KeyView }>("POST", "/keys", {
      name: "production",
    });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^svk_[A-Za-z0-9_-]{8}_[A-Za-z0-9_-]{43}$/);
    expect(created.body.apiKey).toMatchObject({
      name: "production",
      prefix: created.body.key.slice(0, 12),
      status: "active",
      lastUsedAt: null,
      revokedAt: null,
    });
    const listed = await client.request("GET", "/keys");
    const text = await listed.text();
    expect(listed.status).toBe(200);
    expect(text).not.toContain(created.body.key);
    expect(text).not.toContain(created.body.key.slice(13));
    expect(text).not.toMatch(/hash/i);
    const { data } = JSON.parse(text) as { data: KeyView[] };
    expect(data).toHaveLength(1);
    expect(Object.keys(data[0] ?? {}).sort()).toEqual(
      [
        "createdAt",
        "id",
        "lastUsedAt",
        "name",
        "prefix",
        "revokedAt",
        "serviceAccountId",
        "status",
      ].sort(),
    );
  });

  test("a key made in the portal reads /v1 (last used is shown) until it is revoked, then 401", async () => {
    const { client } = await signedInOwner(services, server.baseUrl);
    const created = await client.json<{ key: string; apiKey: KeyView }>("POST", "/keys", {});
    expect(created.body.apiKey.name).toBe("API key");
    const auth = { Authorization: `Bearer ${created.body.key}` };
    expect((await fetch(`${server.baseUrl}/v1/accounts`, { headers: auth })).status).toBe(200);
    const [used] = (await client.json<{ data: KeyView[] }>("GET", "/keys")).body.data;
    expect(used?.lastUsedAt).toBe(clock.now().toISOString());

    clock.advance(60_000);
    const revoked = await client.json<{ apiKey: KeyView; alreadyRevoked: boolean }>(
      "POST",
      `/keys/${created.body.apiKey.id}/revoke`,
    );
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ alreadyRevoked: false });
    expect(revoked.body.apiKey.revokedAt).toBe(clock.now().toISOString());
    const refused = await fetch(`${server.baseUrl}/v1/accounts`, { headers: auth });
    expect(refused.status).toBe(401);

    // Revoked keys stay listed with their date; a second revoke keeps the first date.
    const [listed] = (await client.json<{ data: KeyView[] }>("GET", "/keys")).body.data;
    expect(listed).toMatchObject({ status: "revoked", revokedAt: revoked.body.apiKey.revokedAt });
    clock.advance(60_000);
    const again = await client.json<{ apiKey: KeyView; alreadyRevoked: boolean }>(
      "POST",
      `/keys/${created.body.apiKey.id}/revoke`,
    );
    expect(again.body.alreadyRevoked).toBe(true);
    expect(again.body.apiKey.revokedAt).toBe(revoked.body.apiKey.revokedAt);
  });

  test("another account's key is not found: it cannot be listed or revoked", async () => {
    const a = await signedInOwner(services, server.baseUrl);
    const b = await signedInOwner(services, server.baseUrl);
    const created = await a.client.json<{ apiKey: KeyView }>("POST", "/keys", { name: "a" });
    const attempt = await b.client.json<{ error: { code: string } }>(
      "POST",
      `/keys/${created.body.apiKey.id}/revoke`,
    );
    expect(attempt.status).toBe(404);
    expect(attempt.body.error.code).toBe("not_found");
    expect((await b.client.json<{ data: KeyView[] }>("GET", "/keys")).body.data).toEqual([]);
    const [still] = (await a.client.json<{ data: KeyView[] }>("GET", "/keys")).body.data;
    expect(still?.status).toBe("active");
    expect((await b.client.request("POST", "/keys/not-a-uuid/revoke")).status).toBe(404);
  });

  test("bad input is refused with 400 naming the problem", async () => {
    const { client } = await signedInOwner(services, server.baseUrl);
    const cases: [unknown, string][] = [
      [{ name: "x".repeat(101) }, "name must be at most 100 characters"],
      [{ name: "tab\there" }, "name must not contain control characters"],
      [{ name: "   " }, "name must not be empty"],
      [{ name: 7 }, "name:"],
      [{ label: "x" }, "Unrecognized key"],
    ];
    for (const [body, message] of cases) {
      const answer = await client.json<{ error: { code: string; message: string } }>(
        "POST",
        "/keys",
        body,
      );
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe("invalid_request");
      expect(answer.body.error.message).toContain(message);
    }
    const notJson = await client.request("POST", "/keys", undefined, {}, "{name");
    expect(notJson.status).toBe(400);
    expect((await client.json<{ data: KeyView[] }>("GET", "/keys")).body.data).toEqual([]);
  });

  test("without a session every key route answers 401", async () => {
    const anonymous = portalClient(server.baseUrl);
    for (const [method, path] of [
      ["GET", "/keys"],
      ["POST", "/keys"],
      ["POST", `/keys/${crypto.randomUUID()}/revoke`],
    ] as const) {
      const answer = await anonymous.json<{ error: { code: string } }>(
        method,
        path,
        method === "GET" ? undefined : {},
      );
      expect(answer.status).toBe(401);
      expect(answer.body.error.code).toBe("session_required");
    }
  });
});
