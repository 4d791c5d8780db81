// "Connect a bank" in a real browser: the compiled binary with both
// provider stubs over real HTTPS (throwaway CA trusted through SVC_PROVIDER_CA_FILE), Debian's
// chromium driving the portal. The browser never talks to the stubs' TLS: the test plays the
// bank's approval page by answering the authorisation URL itself, as a bank's page would, and
// the server's calls to the provider APIs are the real ones.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import type { Page } from "playwright-core";
import { createServiceAccount } from "../../src/accounts/service-accounts.ts";
import { loadConfig } from "../../src/config/config.ts";
import { silentLogger } from "../../src/log/log.ts";
import { openServices, type Services } from "../../src/server/services.ts";
import { seriousAxeFindings } from "../support/axe.ts";
import { compiledBinary, type StartedBinary, startBinary } from "../support/binary.ts";
import { launchBrowser, screenshot, type TestBrowser } from "../support/browser.ts";
import { type EnableBankingStub, startEnableBankingStub } from "../support/enable-banking-stub.ts";
import { engineEnvFor } from "../support/engine.ts";
import { createTestPki } from "../support/pki.ts";
import { type SimplefinStub, startSimplefinStub } from "../support/simplefin-stub.ts";
import { makeTempDir } from "../support/temp.ts";

const password = "owner password for the connect test";
let server: StartedBinary;
let writer: Services;
let eb: EnableBankingStub;
let sf: SimplefinStub;
let browser: TestBrowser;
let page: Page;
let email = "";

async function openConnections() {
  const menu = page.getByRole("button", { name: "Menu" });
  if ((await menu.isVisible()) && (await menu.getAttribute("aria-expanded")) === "false")
    await menu.click();
  await page
    .getByRole("navigation", { name: "Portal" })
    .getByRole("link", { name: "Connections" })
    .click();
  await page.getByRole("heading", { name: "Bank connections" }).waitFor();
}

/** The bank's approval page: "Approve" and "Decline" lead back to the service's callback. */
function playTheBank(authorizationUrl: string): string {
  const id = new URL(authorizationUrl).searchParams.get("id") ?? "";
  const callback = `${server.baseUrl}/connect/callback?state=${encodeURIComponent(eb.lastState)}`;
  return `<!doctype html><html lang="en"><head><title>Stub Bank</title></head><body><main>
<h1>Stub Bank asks you to approve</h1>
<a href="${callback}&code=${encodeURIComponent(eb.approve(id))}">Approve</a>
<a href="${callback}&error=access_denied">Decline</a>
</main></body></html>`;
}

beforeAll(async () => {
  const binary = await compiledBinary();
  const pki = await createTestPki();
  eb = await startEnableBankingStub({ pki });
  sf = await startSimplefinStub(pki);
  eb.accounts.push({
    uid: "eb-acc-1",
    iban: "FI2112345600000785",
    name: "Everyday EUR",
    currency: "EUR",
    balance: "1200.00",
    transactions: [],
  });
  sf.accounts.push({
    id: "ACT-9",
    name: "Checking USD",
    currency: "USD",
    balance: "500.25",
    "balance-date": Math.floor(Date.now() / 1000),
    transactions: [],
  });
  const cwd = makeTempDir("svc-portal-connect");
  server = await startBinary(binary, {
    cwd,
    env: {
      SVC_UNSAFE_ALLOW_PRIVATE_TARGETS: "true",
      SVC_PROVIDER_CA_FILE: pki.caFile,
      SVC_ENABLE_BANKING_APPLICATION_ID: eb.applicationId,
      SVC_ENABLE_BANKING_KEY_FILE: eb.keyFile,
      SVC_ENABLE_BANKING_API_URL: eb.url,
      SVC_LOG_LEVEL: "warn",
    },
  });
  writer = await openServices(
    loadConfig({ env: await engineEnvFor(cwd), cwd, flags: { dataDir: join(cwd, "data") } }),
    { log: silentLogger },
  );
  email = `owner-${crypto.randomUUID().slice(0, 8)}@example.com`;
  await createServiceAccount(writer.db, writer.clock, { email, password });
  browser = await launchBrowser();
  page = browser.page;
  // Anything under the Enable Banking stub's /bank/ path is the bank's own web page.
  await page.route(`${eb.url}/bank/**`, (route) =>
    route.fulfill({ contentType: "text/html", body: playTheBank(route.request().url()) }),
  );
  await page.goto(server.baseUrl);
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("navigation", { name: "Portal" }).waitFor({ state: "attached" });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await writer?.database.close();
  if (server) await server.stop();
  eb?.stop();
  sf?.stop();
});

describe("Connect a bank in the portal (real browser, compiled binary, provider stubs)", () => {
  test("Enable Banking: country, bank from the provider's list, approval at the bank, the callback says it worked, and the connection shows provider, bank, status and consent expiry", async () => {
    await openConnections();
    const card = page.locator("section", {
      has: page.getByRole("heading", { name: "Connect a bank" }),
    });
    // Only configured providers are offered, Enable Banking and SimpleFIN here.
    const where = card.getByLabel("Where is your bank?");
    await where.locator("option", { hasText: "SimpleFIN" }).waitFor({ state: "attached" });
    expect(await where.locator("option").allTextContents()).toEqual([
      "European bank (Enable Banking)",
      "North American bank (SimpleFIN Bridge)",
    ]);
    await where.selectOption("enable_banking");
    await card.getByLabel("Country of your bank").fill("fi");
    await card.getByRole("button", { name: "Show banks" }).click();
    await card.getByLabel("Your bank").locator("option", { hasText: "Stub Bank" }).waitFor({
      state: "attached",
    });
    expect(await seriousAxeFindings(page)).toEqual([]);
    await card.getByRole("button", { name: "Continue to your bank" }).click();

    await page.getByRole("heading", { name: "Stub Bank asks you to approve" }).waitFor();
    expect(eb.calls.some((call) => call.startsWith("POST /auth"))).toBe(true);
    await page.getByRole("link", { name: "Approve" }).click();
    await page.getByRole("heading", { name: "Your bank is connected" }).waitFor();
    expect(await seriousAxeFindings(page)).toEqual([]);
    await screenshot(page, "connect-bank-callback");

    await page.getByRole("link", { name: "Back to your account" }).click();
    await openConnections();
    const connection = page
      .getByTestId("connection")
      .filter({ hasText: "Enable Banking" })
      .filter({ hasText: "Stub Bank" });
    await connection.getByTestId("connection-status").getByText("linked").waitFor();
    await connection.getByText(/consent until/).waitFor();
    await connection.getByText("Everyday EUR").waitFor();
    await screenshot(page, "connect-bank-connections");
  }, 60_000);

  test("Enable Banking: declining at the bank says nothing was connected, in plain words", async () => {
    await openConnections();
    const card = page.locator("section", {
      has: page.getByRole("heading", { name: "Connect a bank" }),
    });
    await card.getByLabel("Where is your bank?").selectOption("enable_banking");
    await card.getByLabel("Country of your bank").fill("FI");
    await card.getByRole("button", { name: "Show banks" }).click();
    await card.getByRole("button", { name: "Continue to your bank" }).click();
    await page.getByRole("link", { name: "Decline" }).click();
    await page.getByRole("heading", { name: "The bank was not connected" }).waitFor();
    await page.getByText("You did not approve access at your bank").waitFor();
    await page.getByRole("link", { name: "Back to your account" }).click();
    await openConnections();
    await page
      .getByTestId("connection")
      .filter({ hasText: "Enable Banking" })
      .getByTestId("connection-status")
      .getByText("rejected")
      .waitFor();
  }, 60_000);

  test("SimpleFIN: a pasted setup token connects the bank once; pasting it again is refused with a clear message", async () => {
    await openConnections();
    const card = page.locator("section", {
      has: page.getByRole("heading", { name: "Connect a bank" }),
    });
    await card.getByLabel("Where is your bank?").selectOption("simplefin");
    const token = sf.setupToken();
    await card.getByLabel("SimpleFIN setup token").fill(`  ${token}\n`);
    await card.getByRole("button", { name: "Connect", exact: true }).click();
    await card.getByText("Your bank is connected.").waitFor();
    const connection = page.getByTestId("connection").filter({ hasText: "SimpleFIN Bridge" });
    await connection.getByTestId("connection-status").getByText("linked").waitFor();
    await connection.getByText("Checking USD").waitFor();

    await card.getByLabel("SimpleFIN setup token").fill(token);
    await card.getByRole("button", { name: "Connect", exact: true }).click();
    await card.getByRole("alert").waitFor();
    expect(await card.getByRole("alert").textContent()).toMatch(/token/i);
    expect(
      await page.getByTestId("connection").filter({ hasText: "SimpleFIN Bridge" }).count(),
    ).toBe(1);
    expect(await seriousAxeFindings(page)).toEqual([]);
  }, 60_000);

  test("Renew: an expired Enable Banking connection is renewed from its card, back at the bank, and keeps its id and accounts", async () => {
    await openConnections();
    const card = page
      .getByTestId("connection")
      .filter({ hasText: "Enable Banking" })
      .filter({ has: page.getByTestId("connection-status").getByText("linked") });
    const id = (await card.getAttribute("data-connection-id")) ?? "";
    // The consent ended (the bank said so on a pull).
    await writer.db.write((tx) =>
      tx.update(tx.t.connections).set({ status: "expired" }).where(eq(tx.t.connections.id, id)),
    );
    await page.reload();
    await openConnections();
    const expired = page.locator(`[data-connection-id="${id}"]`);
    await expired.getByTestId("connection-status").getByText("expired").waitFor();
    await expired.getByRole("button", { name: /^Renew/ }).click();
    await page.getByRole("heading", { name: "Stub Bank asks you to approve" }).waitFor();
    await page.getByRole("link", { name: "Approve" }).click();
    await page.getByRole("heading", { name: "Your bank is connected" }).waitFor();
    await page.getByRole("link", { name: "Back to your account" }).click();
    await openConnections();
    const renewed = page.locator(`[data-connection-id="${id}"]`);
    await renewed.getByTestId("connection-status").getByText("linked").waitFor();
    await renewed.getByText("Everyday EUR").waitFor();
    expect(await renewed.getByTestId("bank-account").count()).toBe(1);
    expect(await seriousAxeFindings(page)).toEqual([]);
  }, 60_000);

  test("the bank's approval opened in another browser attaches nothing and asks to sign in; the starting browser then finishes", async () => {
    await openConnections();
    const card = page.locator("section", {
      has: page.getByRole("heading", { name: "Connect a bank" }),
    });
    await card.getByLabel("Where is your bank?").selectOption("enable_banking");
    await card.getByLabel("Country of your bank").fill("FI");
    await card.getByRole("button", { name: "Show banks" }).click();
    await card.getByRole("button", { name: "Continue to your bank" }).click();
    const approve = page.getByRole("link", { name: "Approve" });
    const approval = (await approve.getAttribute("href")) ?? "";
    const sessionsBefore = eb.sessions.size;
    // A victim's browser (no cookie of this link, nobody signed in) follows the approval.
    const other = await launchBrowser();
    try {
      await other.page.goto(approval);
      await other.page
        .getByRole("heading", { name: "Sign in to finish connecting the bank" })
        .waitFor();
      await other.page.getByText("nothing was connected").waitFor();
      expect(await seriousAxeFindings(other.page)).toEqual([]);
      await screenshot(other.page, "connect-bank-unbound-callback");
    } finally {
      await other.close();
    }
    expect(eb.sessions.size).toBe(sessionsBefore);
    await approve.click();
    await page.getByRole("heading", { name: "Your bank is connected" }).waitFor();
    expect(eb.sessions.size).toBe(sessionsBefore + 1);
    await page.getByRole("link", { name: "Back to your account" }).click();
  }, 60_000);

  test("Remove asks first, then removes the connection and ends the Enable Banking session at the provider", async () => {
    await openConnections();
    const connection = page
      .getByTestId("connection")
      .filter({ hasText: "Enable Banking" })
      .filter({ has: page.getByTestId("connection-status").getByText("linked") })
      .first();
    const id = (await connection.getAttribute("data-connection-id")) ?? "";
    expect(id).not.toBe("");
    await connection.getByRole("button", { name: /^Remove/ }).click();
    await page.getByRole("button", { name: "Remove connection" }).click();
    await page.locator(`[data-connection-id="${id}"]`).waitFor({ state: "detached" });
    // The first session was given up by Renew; the renewed one by Remove.
    const sessions = [...eb.sessions.values()];
    expect(sessions.slice(0, 2).map((s) => s.deleted)).toEqual([true, true]);
    expect(sessions[2]?.deleted).toBe(false);
  }, 60_000);
});
