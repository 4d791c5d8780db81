import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { updateServiceAccount } from "../../src/accounts/service-accounts.ts";
import { startLink } from "../../src/banking/link.ts";
import { createApiKey } from "../../src/keys/api-keys.ts";
import type { Services } from "../../src/server/services.ts";
import { type EnableBankingStub, startEnableBankingStub } from "../support/enable-banking-stub.ts";
import { createFakeClock } from "../support/fake-clock.ts";
import { createTestPki } from "../support/pki.ts";
import { type PortalClient, signedInOwner } from "../support/portal.ts";
import { rawRecordingLogger } from "../support/raw-logger.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { createTestServices } from "../support/services.ts";
import { type SimplefinStub, startSimplefinStub } from "../support/simplefin-stub.ts";

const clock = createFakeClock(new Date().toISOString());
const logger = rawRecordingLogger();
let eb: EnableBankingStub;
let sf: SimplefinStub;
let services: Services;
let server: TestServer;
let client: PortalClient;
let ownerAccountId: string;

beforeAll(async () => {
  const pki = await createTestPki();
  eb = await startEnableBankingStub({ pki, clock });
  sf = await startSimplefinStub(pki);
  eb.accounts.push({
    uid: "eb-1",
    iban: "FI2112345600000785",
    name: "Everyday",
    currency: "EUR",
    balance: "10.00",
    transactions: [],
  });
  sf.accounts.push({
    id: "ACT-1",
    name: "Checking",
    currency: "USD",
    balance: "5.00",
    "balance-date": Math.floor(clock.now().getTime() / 1000),
    transactions: [],
  });
  services = await createTestServices({
    clock,
    log: logger,
    config: {
      providerCaFile: pki.caFile,
      enableBankingApplicationId: eb.applicationId,
      enableBankingKeyFile: eb.keyFile,
      enableBankingApiUrl: eb.url,
    },
  });
  server = startTestServer(services);
  ({ client, accountId: ownerAccountId } = await signedInOwner(services, server.baseUrl));
});
afterAll(async () => {
  await server.stop();
  eb.stop();
  sf.stop();
});

/**
 * The bank's redirect back, as the browser that started the link makes it: a cross-site
 * top-level GET carries its (Lax) link cookie, never its (Strict) session cookie.
 */
async function callback(
  query: string,
  browser: PortalClient | null = client,
): Promise<{ status: number; text: string }> {
  const cookies = browser ? [...browser.otherCookies.values()].join("; ") : "";
  const response = await fetch(`${server.baseUrl}/connect/callback?${query}`, {
    headers: cookies ? { Cookie: cookies } : {},
  });
  return { status: response.status, text: await response.text() };
}

async function accountsOf(connectionId: string) {
  const { bankAccounts } = services.db.t;
  return services.db.select().from(bankAccounts).where(eq(bankAccounts.connectionId, connectionId));
}

describe("connect a bank from the portal and the bank's callback", () => {
  test("the portal lists configured providers and Enable Banking's banks", async () => {
    const providers = await client.json<{ data: { name: string; configured: boolean }[] }>(
      "GET",
      "/bank-links/providers",
    );
    expect(providers.body.data.map((p) => [p.name, p.configured])).toEqual([
      ["enable_banking", true],
      ["simplefin", true],
    ]);
    const banks = await client.json<{ data: { name: string }[] }>(
      "GET",
      "/bank-links/enable-banking/banks?country=FI",
    );
    expect(banks.body.data[0]?.name).toBe("Stub Bank");
  });

  test("start at the portal, approve at the bank, the callback page says it is connected; a replay is refused in plain words", async () => {
    const started = await client.json<{ connection_id: string; redirect_url: string }>(
      "POST",
      "/bank-links/enable-banking",
      { country: "FI", bank: "Stub Bank" },
    );
    expect(started.status).toBe(201);
    const authorizationId = new URL(started.body.redirect_url).searchParams.get("id") ?? "";
    const state = eb.lastState;
    const code = eb.approve(authorizationId);
    const done = await callback(`state=${encodeURIComponent(state)}&code=${code}`);
    expect(done.status).toBe(200);
    expect(done.text).toContain("Your bank is connected");
    const replay = await callback(`state=${encodeURIComponent(state)}&code=${code}`);
    expect(replay.status).toBe(400);
    expect(replay.text).toContain("already used");

    const list = await client.json<{ data: { id: string; status: string }[] }>(
      "GET",
      "/connections",
    );
    expect(list.body.data.find((c) => c.id === started.body.connection_id)?.status).toBe("linked");

    const removed = await client.json<{ provider_session_deleted: boolean }>(
      "DELETE",
      `/bank-links/${started.body.connection_id}`,
    );
    expect(removed.body.provider_session_deleted).toBe(true);
  });

  test("a link started before the account was disabled does not complete at the callback", async () => {
    const owner = await signedInOwner(services, server.baseUrl);
    const started = await owner.client.json<{ connection_id: string; redirect_url: string }>(
      "POST",
      "/bank-links/enable-banking",
      { country: "FI", bank: "Stub Bank" },
    );
    expect(started.status).toBe(201);
    const state = eb.lastState;
    const code = eb.approve(new URL(started.body.redirect_url).searchParams.get("id") ?? "");
    await updateServiceAccount(services.db, clock, owner.accountId, { disabled: true });
    const page = await callback(`state=${encodeURIComponent(state)}&code=${code}`, owner.client);
    expect(page.status).toBe(400);
    expect(page.text).toContain("The bank was not connected. This account is disabled");
    const list = await owner.client.json<{ data: { id: string; status: string }[] }>(
      "GET",
      "/connections",
    );
    expect(list.body.data.find((c) => c.id === started.body.connection_id)?.status).not.toBe(
      "linked",
    );
  });

  test("declining at the bank gives a page that says nothing was connected", async () => {
    await client.json("POST", "/bank-links/enable-banking", { country: "FI", bank: "Stub Bank" });
    const page = await callback(`state=${encodeURIComponent(eb.lastState)}&error=access_denied`);
    expect(page.status).toBe(200);
    expect(page.text).toContain("not connected");
  });

  test("a pasted SimpleFIN setup token links the bank", async () => {
    const linked = await client.json<{ status: string }>("POST", "/bank-links/simplefin", {
      setup_token: sf.setupToken(),
    });
    expect(linked.status).toBe(201);
    expect(linked.body.status).toBe("linked");
  });

  test("no provider secret ever reaches the logs or the portal's answers", async () => {
    const list = await client.request("GET", "/connections");
    const body = await list.text();
    const secrets = [
      ...eb.sessions.keys(),
      ...sf.issued,
      ...sf.issued.map((u) => new URL(u).password),
    ];
    expect(secrets.length).toBeGreaterThan(2);
    const logs = logger.lines.join("\n");
    expect(logs.length).toBeGreaterThan(0);
    for (const secret of secrets) {
      expect(logs).not.toContain(secret);
      expect(body).not.toContain(secret);
    }
  });

  test("a failed claim leaves the setup token nowhere: not in the connection's error, the portal, the logs or the database", async () => {
    const token = `unclaimed${crypto.randomUUID().replaceAll("-", "")}`;
    // Nothing listens on port 9: the claim fails with a connection error naming the host.
    const setupToken = Buffer.from(`https://localhost:9/simplefin/claim/${token}`).toString(
      "base64",
    );
    const failed = await client.request("POST", "/bank-links/simplefin", {
      setup_token: setupToken,
    });
    const failedBody = await failed.text();
    expect(failed.status).toBe(503);
    expect(failedBody).toContain("https://localhost:9");
    const portal = await (await client.request("GET", "/connections")).text();
    const failedConnection = (
      JSON.parse(portal) as { data: { id: string; status: string; error: string | null }[] }
    ).data.find((c) => c.status === "error" && c.error?.includes("localhost:9"));
    expect(failedConnection).toBeDefined();
    const key = await createApiKey(services.db, clock, {
      serviceAccountId: ownerAccountId,
      name: "leak check",
    });
    const api = await fetch(`${server.baseUrl}/v1/connections/${failedConnection?.id}`, {
      headers: { Authorization: `Bearer ${key.key}` },
    });
    const apiBody = await api.text();
    expect(api.status).toBe(200);
    expect((JSON.parse(apiBody) as { error: string }).error).toContain("https://localhost:9");
    const places = [failedBody, portal, apiBody, logger.lines.join("\n")];
    if (!services.config.databaseUrl) {
      for (const name of ["svc.db", "svc.db-wal"]) {
        const path = join(services.config.dataDir, name);
        if (existsSync(path)) places.push(readFileSync(path).toString("latin1"));
      }
    } else {
      const { connections } = services.db.t;
      places.push(JSON.stringify(await services.db.select().from(connections)));
    }
    for (const place of places) {
      expect(place).not.toContain(token);
      expect(place).not.toContain("/simplefin/claim");
    }
  });
});

describe("a bank link is bound to the browser that started it", () => {
  async function startInPortal(browser: PortalClient) {
    const started = await browser.json<{ connection_id: string; redirect_url: string }>(
      "POST",
      "/bank-links/enable-banking",
      { country: "FI", bank: "Stub Bank" },
    );
    expect(started.status).toBe(201);
    const id = new URL(started.body.redirect_url).searchParams.get("id") ?? "";
    return { connectionId: started.body.connection_id, state: eb.lastState, code: eb.approve(id) };
  }

  test("a callback without the starting browser's cookie attaches nothing and shows a clear page; the starting browser then finishes it", async () => {
    const { connectionId, state, code } = await startInPortal(client);
    const sessionsBefore = eb.sessions.size;
    const query = `state=${encodeURIComponent(state)}&code=${code}`;
    const bare = await callback(query, null);
    expect(bare.status).toBe(403);
    expect(bare.text).toContain("Sign in to finish connecting the bank");
    expect(bare.text).toContain("nothing was connected");
    // Nothing attached: no provider session made, no accounts, the connection still waiting.
    expect(eb.sessions.size).toBe(sessionsBefore);
    expect(await accountsOf(connectionId)).toEqual([]);
    const waiting = await client.json<{ data: { id: string; status: string }[] }>(
      "GET",
      "/connections",
    );
    expect(waiting.body.data.find((c) => c.id === connectionId)?.status).toBe("awaiting_auth");
    // Another signed-in user (the victim an attacker sent the bank's URL to) proves nothing.
    const victim = await signedInOwner(services, server.baseUrl);
    const continued = await fetch(`${server.baseUrl}/connect/callback`, {
      method: "POST",
      headers: {
        Origin: server.baseUrl,
        Cookie: victim.client.cookie ?? "",
        "Content-Type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ state, code }).toString(),
    });
    expect(continued.status).toBe(403);
    expect(await accountsOf(connectionId)).toEqual([]);

    const done = await callback(query, client);
    expect(done.status).toBe(200);
    expect(done.text).toContain("Your bank is connected");
    expect((await accountsOf(connectionId)).map((a) => a.externalId)).toEqual(["eb-1"]);
  });

  test("the owner signed in at Continue finishes a link whose starting browser is gone; Continue from another site is refused", async () => {
    const { connectionId, state, code } = await startInPortal(client);
    const form = new URLSearchParams({ state, code }).toString();
    const headers = {
      Cookie: client.cookie ?? "",
      "Content-Type": "application/x-www-form-urlencoded",
    };
    const foreign = await fetch(`${server.baseUrl}/connect/callback`, {
      method: "POST",
      headers: { ...headers, Origin: "https://evil.example" },
      body: form,
    });
    expect(foreign.status).toBe(403);
    expect(await accountsOf(connectionId)).toEqual([]);
    const own = await fetch(`${server.baseUrl}/connect/callback`, {
      method: "POST",
      headers: { ...headers, Origin: server.baseUrl },
      body: form,
    });
    expect(own.status).toBe(200);
    expect(await own.text()).toContain("Your bank is connected");
    expect(await accountsOf(connectionId)).toHaveLength(1);
  });

  test("a link started from the CLI asks for the owner or an operator to sign in; an operator's session finishes it", async () => {
    const start = await startLink(services, ownerAccountId, {
      provider: "enable_banking",
      country: "FI",
      bank: "Stub Bank",
    });
    if (start.kind !== "redirect") throw new Error("expected a redirect");
    const code = eb.approve(new URL(start.url).searchParams.get("id") ?? "");
    const query = `state=${encodeURIComponent(eb.lastState)}&code=${code}`;
    const bare = await callback(query, null);
    expect(bare.status).toBe(403);
    expect(bare.text).toContain("started from the command line");
    expect(bare.text).toContain('<form method="post" action="/connect/callback">');
    const operator = await signedInOwner(services, server.baseUrl, { isOperator: true });
    const page = await fetch(`${server.baseUrl}/connect/callback?${query}`, {
      headers: { Cookie: operator.client.cookie ?? "" },
    });
    expect(page.status).toBe(200);
    expect(await accountsOf(start.connectionId)).toHaveLength(1);
  });
});
