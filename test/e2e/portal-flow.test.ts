// The portal end to end: the compiled binary, a real browser (Debian's
// chromium through playwright-core) and a local HTTPS receiver trusted through
// SVC_DELIVERY_CA_FILE. The steps run in order and share one instance; each waits for visible
// state, never for a fixed time. Screenshots of the main pages go to test-artifacts/screenshots.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { compiledBinary, runBinary, type StartedBinary, startBinary } from "../support/binary.ts";
import { launchBrowser, screenshot, type TestBrowser } from "../support/browser.ts";
import { type Receiver, startReceiver } from "../support/receiver.ts";
import { makeTempDir } from "../support/temp.ts";
import { verifyWebhook } from "../support/webhook-verifier.ts";
import { testCertificates } from "../support/webhooks.ts";

const ownerEmail = "owner@example.com";
const ownerPassword = "owner password for the e2e test";
const operatorNewPassword = "operator password for the e2e test";

let binary: string;
let cwd: string;
let server: StartedBinary;
let receiver: Receiver;
let browser: TestBrowser;
let page: Page;
let operator: { email: string; oneTimePassword: string };
/** What account events get from the receiver (test and verification sends always get 200). */
let accountEventStatus = 200;
/** Every secret the flow saw; none may appear in a URL, storage or a log line. */
const secrets: string[] = [];
const requestedUrls: string[] = [];
/** State carried from step to step. */
const flow = {
  productionKey: "",
  endpointId: "",
  secret: "",
  connectionId: "",
};

async function svc(args: string[]) {
  const result = await runBinary(binary, [...args, "--json"], cwd, { SVC_LOG_LEVEL: "warn" });
  if (result.code !== 0) throw new Error(`svc ${args.join(" ")} failed: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

async function portalApi<T>(path: string): Promise<T> {
  return page.evaluate(
    async (p) => (await fetch(`/portal/api${p}`, { credentials: "same-origin" })).json(),
    path,
  ) as Promise<T>;
}

async function signIn(email: string, password: string) {
  await page.goto(server.baseUrl);
  await page.getByRole("heading", { name: "Sign in to Svc" }).waitFor();
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

async function signOut() {
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByRole("heading", { name: "Sign in to Svc" }).waitFor();
}

async function openNav(label: string) {
  // At phone width the navigation sits behind the Menu button.
  const menu = page.getByRole("button", { name: "Menu" });
  if ((await menu.isVisible()) && (await menu.getAttribute("aria-expanded")) === "false")
    await menu.click();
  await page.getByRole("navigation", { name: "Portal" }).getByRole("link", { name: label }).click();
}

function verifiesWith(secret: string, request: Receiver["requests"][number] | undefined) {
  return verifyWebhook({
    secret,
    headers: request?.headers ?? {},
    rawBody: request?.body ?? "",
    nowSeconds: Math.floor(Date.now() / 1000),
  }).ok;
}

function lastOfType(type: string) {
  return receiver.requests.findLast((r) => JSON.parse(r.body).type === type);
}

beforeAll(async () => {
  const { pki, cert } = await testCertificates();
  receiver = startReceiver(cert, (request) => {
    const type = JSON.parse(request.body).type as string;
    const status = type.startsWith("webhook.") ? 200 : accountEventStatus;
    return new Response(null, { status });
  });
  binary = await compiledBinary();
  cwd = makeTempDir("svc-portal-e2e");
  server = await startBinary(binary, {
    cwd,
    env: {
      SVC_UNSAFE_ALLOW_PRIVATE_TARGETS: "true",
      SVC_DELIVERY_CA_FILE: pki.caFile,
      SVC_DELIVERY_SOURCE_IP: "127.0.0.1",
      SVC_LOG_LEVEL: "debug",
    },
  });
  const stdout = server.stdout();
  operator = {
    email: stdout.match(/e-mail\s+(\S+)/)?.[1] ?? "",
    oneTimePassword: stdout.match(/password\s+(\S+)/)?.[1] ?? "",
  };
  secrets.push(operator.oneTimePassword, operatorNewPassword, ownerPassword);
  browser = await launchBrowser();
  page = browser.page;
  browser.context.on("request", (request) => {
    requestedUrls.push(request.url());
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await receiver?.stop();
  if (server) expect(await server.stop()).toBe(0);
});

describe("portal in a real browser against the compiled binary", () => {
  test("a signed-out visitor sees only sign-in; the first operator signs in with the one-time password from stdout and must replace it", async () => {
    expect(operator.email).toContain("@");
    expect(operator.oneTimePassword.length).toBeGreaterThanOrEqual(12);
    const anonymous = await fetch(`${server.baseUrl}/portal/api/overview`);
    expect(anonymous.status).toBe(401);

    await page.goto(`${server.baseUrl}/#/keys`);
    await page.getByRole("heading", { name: "Sign in to Svc" }).waitFor();
    expect(await page.getByRole("navigation").count()).toBe(0);
    await screenshot(page, "01-sign-in");

    await signIn(operator.email, operator.oneTimePassword);
    await page.getByRole("heading", { name: "Choose your password" }).waitFor();
    await screenshot(page, "02-forced-password-change");
    // The one-time password was typed a moment ago: it is not asked for a second time.
    expect(await page.getByLabel("One-time password").count()).toBe(0);
    await page.getByLabel("New password", { exact: true }).fill(operatorNewPassword);
    await page.getByLabel("New password again").fill(operatorNewPassword);
    await page.getByRole("button", { name: "Save password" }).click();

    // Operators own an account too: both sets of pages are offered.
    const nav = page.getByRole("navigation", { name: "Portal" });
    for (const label of ["Overview", "API keys", "Webhooks", "Connections", "Accounts"]) {
      await nav.getByRole("link", { name: label }).waitFor();
    }
    await nav.getByRole("link", { name: "Mail outbox" }).waitFor();
    await signOut();
  }, 60_000);

  test("an account owner signs in with the keyboard alone and sees what API calls get now", async () => {
    await Bun.write(join(cwd, "owner-password.txt"), ownerPassword);
    // Entitled only through its subscription, so changing the subscription lapses it.
    await svc([
      "accounts",
      "create",
      "--email",
      ownerEmail,
      "--password-file",
      "owner-password.txt",
      "--status",
      "lapsed",
      "--subscription",
      "active",
    ]);
    await page.goto(server.baseUrl);
    await page.getByRole("heading", { name: "Sign in to Svc" }).waitFor();
    await page.keyboard.press("Tab");
    await page.keyboard.type(ownerEmail);
    await page.keyboard.press("Tab");
    await page.keyboard.type(ownerPassword);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    const access = page.getByTestId("api-access");
    await access.getByText("API calls with a valid key are served.").waitFor();
    await access.getByText("the subscription is active").waitFor();
    // The default base URL names localhost on the port the binary listens on.
    await page
      .getByText(`http://localhost:${new URL(server.baseUrl).port}/v1`, { exact: true })
      .first()
      .waitFor();
    await page.getByText("127.0.0.1", { exact: true }).waitFor();
    // The skip link moves focus to the content without leaving the page (the hash is the route).
    await page.getByRole("button", { name: "Skip to content" }).focus();
    await page.keyboard.press("Enter");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("main");
    expect(new URL(page.url()).hash).toBe("#/overview");
    // Owners see no operator pages.
    expect(await page.getByRole("link", { name: "Mail outbox" }).count()).toBe(0);
    await screenshot(page, "03-overview");
  }, 30_000);

  test("create a key (shown once), use it, revoke it: the API refuses it at once", async () => {
    await openNav("API keys");
    await page.getByRole("heading", { name: "API keys" }).waitFor();
    await page.getByText("No API keys yet").waitFor();
    await page.getByLabel("Name (optional)").fill("ci");
    await page.getByRole("button", { name: "Create key" }).click();
    const value = page.getByTestId("secret-value");
    await value.waitFor();
    const key = (await value.textContent()) ?? "";
    expect(key).toMatch(/^svk_[A-Za-z0-9_-]{8}_[A-Za-z0-9_-]{43}$/);
    secrets.push(key);
    await page.getByText("It is shown only once").waitFor();
    // The copy button's accessible name begins with its visible text (axe: label-content-name-mismatch).
    const copy = page.getByRole("button", { name: /^Copy / });
    const visible = ((await copy.textContent()) ?? "").trim();
    expect(visible).toBe("Copy");
    expect(await copy.getAttribute("aria-label")).toStartWith(`${visible} `);
    await screenshot(page, "04-key-created");
    await page.getByRole("button", { name: "I have stored it safely" }).click();
    expect(await page.getByTestId("secret-value").count()).toBe(0);
    const row = page.getByTestId("key-row").filter({ hasText: key.slice(0, 12) });
    await row.getByText("active").waitFor();

    const auth = { Authorization: `Bearer ${key}` };
    expect((await fetch(`${server.baseUrl}/v1/accounts`, { headers: auth })).status).toBe(200);

    await row.getByRole("button", { name: "Revoke" }).click();
    await row.getByRole("button", { name: "Revoke key" }).click();
    await row.getByText("revoked", { exact: true }).waitFor();
    await row.getByTestId("revoked-at").waitFor();
    const refused = await fetch(`${server.baseUrl}/v1/accounts`, { headers: auth });
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe(
      "invalid_api_key",
    );

    // A second key stays for the entitlement check at the end.
    await page.getByLabel("Name (optional)").fill("production");
    await page.getByRole("button", { name: "Create key" }).click();
    flow.productionKey = (await page.getByTestId("secret-value").textContent()) ?? "";
    secrets.push(flow.productionKey);
    await page.getByRole("button", { name: "I have stored it safely" }).click();
    await page.getByTestId("key-row").filter({ hasText: "production" }).waitFor();
    await screenshot(page, "05-keys");
  }, 30_000);

  test("add an endpoint: the URL rules are shown before submitting, a bad URL is explained inline, the secret is shown once", async () => {
    await openNav("Webhooks");
    await page.getByRole("heading", { name: "Webhook endpoints" }).waitFor();
    await page.getByText("No webhook endpoints yet.").waitFor();
    await page.getByText("on the standard port 443").waitFor();
    const url = page.getByLabel("Endpoint URL");
    await url.fill("http://hooks.example.com/svc");
    await page.getByRole("button", { name: "Add endpoint" }).click();
    await page.getByText("url must use https://").waitFor();
    expect(await url.getAttribute("aria-invalid")).toBe("true");
    await screenshot(page, "06-endpoint-url-error");

    await url.fill(receiver.url("/hooks"));
    await page.getByLabel("Description (optional)").fill("Orders service");
    await page.getByRole("button", { name: "Add endpoint" }).click();
    const secret = (await page.getByTestId("secret-value").textContent()) ?? "";
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    flow.secret = secret;
    secrets.push(secret);
    await screenshot(page, "07-endpoint-added");
    await page.getByRole("button", { name: "I have stored it safely" }).click();
    expect(await page.getByTestId("secret-value").count()).toBe(0);
    await page.getByRole("link", { name: `verify ${receiver.url("/hooks")}` }).click();
    await page.getByRole("heading", { name: "Orders service" }).waitFor();
    flow.endpointId = page.url().split("/").at(-1) ?? "";
    await page.getByTestId("endpoint-state").getByText("unverified").waitFor();
  }, 30_000);

  test("verify with the code the receiver got: a wrong code costs an attempt, the countdown runs, the right code verifies", async () => {
    await page.getByRole("button", { name: "Send verification code" }).click();
    await page.getByText(/Verification code delivered: HTTP 200 in \d+ ms/).waitFor();
    const state = page.getByTestId("verification-state");
    await state.getByText("5 attempts left.").waitFor();
    await page
      .getByTestId("code-expiry")
      .getByText(/Expires in (1 h 00 min|59 min \d\d s)/)
      .waitFor();
    const code = JSON.parse(lastOfType("webhook.verify")?.body ?? "{}").data.code as string;
    expect(code).toMatch(/^[A-Z2-9]{8}$/);
    secrets.push(code);

    const input = page.getByLabel("Verification code");
    await input.fill(code === "ABCDEFGH" ? "HGFEDCBA" : "ABCDEFGH");
    await page.getByRole("button", { name: "Verify", exact: true }).click();
    await page.getByText("The verification code is not correct; 4 attempts left.").waitFor();
    await state.getByText("4 attempts left.").waitFor();
    await screenshot(page, "08-verify-flow");

    await input.fill(code.toLowerCase());
    await page.getByRole("button", { name: "Verify", exact: true }).click();
    await page.getByText("Verified: account events now flow to this endpoint.").waitFor();
    await page.getByTestId("endpoint-state").getByText("active").waitFor();
    expect(await page.getByTestId("endpoint-state").getByText("unverified").count()).toBe(0);
  }, 30_000);

  test("Test shows the receiver's status code and response time; the event is signed with the secret", async () => {
    await page.getByRole("button", { name: "Send test event" }).click();
    await page.getByText(/Test event delivered: HTTP 200 in \d+ ms/).waitFor();
    expect(verifiesWith(flow.secret, lastOfType("webhook.test"))).toBe(true);
  }, 30_000);

  test("rotate the secret: confirmed, the new one shown once, the old one stops verifying", async () => {
    await page.getByRole("button", { name: "Rotate secret" }).click();
    await page.getByRole("button", { name: "Yes, issue a new secret" }).click();
    const rotated = (await page.getByTestId("secret-value").textContent()) ?? "";
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(flow.secret);
    secrets.push(rotated);
    await screenshot(page, "09-secret-rotated");
    await page.getByRole("button", { name: "I have stored it safely" }).click();
    const before = receiver.requests.length;
    await page.getByRole("button", { name: "Send test event" }).click();
    await page.getByText(/Test event delivered: HTTP 200 in \d+ ms/).waitFor();
    await receiver.waitFor(before + 1);
    expect(verifiesWith(rotated, lastOfType("webhook.test"))).toBe(true);
    expect(verifiesWith(flow.secret, lastOfType("webhook.test"))).toBe(false);
    flow.secret = rotated;
  }, 30_000);

  test("connect the sandbox bank and Sync now: statuses, accounts and balances", async () => {
    accountEventStatus = 500;
    await openNav("Connections");
    await page.getByRole("heading", { name: "Bank connections" }).waitFor();
    await page.getByText("No bank connections yet.").waitFor();
    await page.getByRole("button", { name: "Connect the sandbox bank" }).click();
    const card = page.getByTestId("connection");
    await card.getByTestId("connection-status").getByText("linked").waitFor();
    flow.connectionId = (await card.getAttribute("data-connection-id")) ?? "";
    await card.getByText("After first sync").first().waitFor();
    await card.getByRole("button", { name: "Sync now" }).click();
    await card.getByText(/Synced: \d+ new transactions, \d+ events raised\./).waitFor();
    await card
      .getByTestId("balance")
      .first()
      // Money in the account's currency through Intl.NumberFormat (e.g. "€1,234.56", "-£12.00").
      .getByText(/\d\.\d{2}/)
      .waitFor();
    expect(await card.getByText("After first sync").count()).toBe(0);
    await screenshot(page, "10-connections");
  }, 30_000);

  test("a failed delivery shows its attempt (HTTP 500) and its next retry in the delivery log", async () => {
    await page.goto(`${server.baseUrl}/#/webhooks/${flow.endpointId}`);
    await page.getByRole("heading", { name: "Delivery log" }).waitFor();
    await page.getByLabel("Outcome").selectOption("pending");
    const failed = page
      .locator('[data-testid="delivery"][data-status="pending"]')
      .filter({ has: page.getByTestId("attempt").getByText("HTTP 500") })
      .first();
    await failed.waitFor();
    await failed
      .getByTestId("next-retry")
      .getByText(/^Next retry at .+ \(in \d+ s\)$/)
      .waitFor();
    // The filtered list replaces the full one once it has loaded.
    await page
      .locator('[data-testid="delivery"]:not([data-status="pending"])')
      .first()
      .waitFor({ state: "detached" });
    await screenshot(page, "11-delivery-log");
    await page.getByLabel("Outcome").selectOption("");
  }, 30_000);

  test("20 failed deliveries in a row disable the endpoint (reason and date shown); Enable makes it active again", async () => {
    const { endpoint } = await portalApi<{ endpoint: { failureCount: number } }>(
      `/endpoints/${flow.endpointId}`,
    );
    // Each status move raises connection.status.changed, which fails at the receiver.
    const needed = 20 - endpoint.failureCount;
    for (let i = 0; i < needed; i++) {
      const status = i % 2 === 0 ? "suspended" : "linked";
      await svc(["sandbox", "set-status", "--connection", flow.connectionId, status]);
    }
    const disabled = page.getByTestId("disabled-reason");
    await disabled.waitFor();
    expect(await disabled.textContent()).toContain("20 consecutive");
    await page.getByTestId("endpoint-state").getByText("disabled").waitFor();
    await page.getByTestId("failure-count").getByText("20 failed deliveries in a row").waitFor();
    await screenshot(page, "12-endpoint-disabled");

    accountEventStatus = 200;
    // The page's own Enable (the banner on every page has one too, named for the endpoint).
    await page.getByRole("button", { name: "Enable", exact: true }).click();
    await page.getByTestId("endpoint-state").getByText("active").waitFor();
    await page.getByTestId("failure-count").getByText("No failed deliveries in a row").waitFor();
    expect(await page.getByTestId("disabled-reason").count()).toBe(0);

    // Sending has resumed: the next event is delivered.
    await svc(["sandbox", "set-status", "--connection", flow.connectionId, "expired"]);
    await page.getByLabel("Outcome").selectOption("succeeded");
    await page
      .locator('[data-testid="delivery"][data-event-type="connection.status.changed"]')
      .getByText("HTTP 200")
      .first()
      .waitFor();
  }, 60_000);

  test("the operator reads the disabled notice in the mail outbox and changes the subscription: the API answers subscription_lapsed", async () => {
    await signOut();
    await signIn(operator.email, operatorNewPassword);
    await openNav("Mail outbox");
    const mail = page
      .getByTestId("mail")
      .filter({ hasText: "Webhook endpoint disabled after 20 failed deliveries" });
    await mail.getByText(`to ${ownerEmail}`).waitFor();
    await mail.getByText("Message").click();
    await mail.getByText("Fix the receiver, then enable the endpoint again").waitFor();
    await screenshot(page, "13-operator-mail");

    await openNav("Settings");
    await page.getByRole("heading", { name: "Instance settings" }).waitFor();
    await page.getByText("Allowed (development only: never in production)").waitFor();
    await screenshot(page, "14-operator-settings");

    await openNav("Accounts");
    await page.getByLabel("Search by id, name, e-mail or connection id").fill(ownerEmail);
    await page.getByRole("button", { name: "Search" }).click();
    await page
      .getByTestId("account-card")
      .filter({ hasText: operator.email })
      .waitFor({ state: "detached" });
    const card = page.getByTestId("account-card").filter({ hasText: ownerEmail });
    await card.waitFor();
    expect(await page.getByTestId("account-card").count()).toBe(1);
    await card.getByRole("button", { name: "Change status and flags" }).click();
    await card.getByLabel("Subscription").selectOption("canceled");
    await card.getByRole("button", { name: "Save changes" }).click();
    await card.getByText("Saved.").waitFor();
    await card.getByText("subscription canceled").waitFor();
    await screenshot(page, "15-operator-accounts");

    const response = await fetch(`${server.baseUrl}/v1/accounts`, {
      headers: { Authorization: `Bearer ${flow.productionKey}` },
    });
    expect(response.status).toBe(403);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe(
      "subscription_lapsed",
    );
    await signOut();
  }, 30_000);

  test("the owner's overview explains the refusal, and the pages work at phone width (375 px)", async () => {
    await page.setViewportSize({ width: 375, height: 812 });
    await signIn(ownerEmail, ownerPassword);
    await page.getByTestId("api-access").getByText("refused: 403 subscription_lapsed").waitFor();
    await page.getByText("API calls are refused with 403 subscription_lapsed.").waitFor();
    const fits = () =>
      page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
    expect(await fits()).toBe(true);
    await screenshot(page, "16-phone-overview");
    await page.getByRole("button", { name: "Menu" }).click();
    await screenshot(page, "17-phone-menu", { fullPage: false });
    await openNav("API keys");
    await page.getByTestId("key-row").first().waitFor();
    expect(await fits()).toBe(true);
    await screenshot(page, "18-phone-keys");
    await page.goto(`${server.baseUrl}/#/webhooks/${flow.endpointId}`);
    await page.getByRole("heading", { name: "Delivery log" }).waitFor();
    await page.getByTestId("delivery").first().waitFor();
    expect(await fits()).toBe(true);
    await screenshot(page, "19-phone-endpoint");
    await page.getByRole("heading", { name: "Delivery log" }).scrollIntoViewIfNeeded();
    await screenshot(page, "19b-phone-delivery-log", { fullPage: false });
    await openNav("Connections");
    await page.getByTestId("bank-account").first().waitFor();
    expect(await fits()).toBe(true);
    await screenshot(page, "20-phone-connections");
    await page.setViewportSize({ width: 1280, height: 800 });
  }, 30_000);

  test("the browser only ever talked to the binary, and no secret appeared in a URL, browser storage, a readable cookie or a log line", async () => {
    const storage = await page.evaluate(() => ({
      local: localStorage.length,
      session: sessionStorage.length,
      cookie: document.cookie,
    }));
    expect(storage).toEqual({ local: 0, session: 0, cookie: "" });
    // Everything is bundled into the binary: the browser never asked any other origin.
    const origins = new Set(requestedUrls.map((url) => new URL(url).origin));
    expect([...origins]).toEqual([new URL(server.baseUrl).origin]);
    expect(secrets.length).toBeGreaterThanOrEqual(8);
    const urls = requestedUrls.join("\n");
    const logs = server.stderr();
    expect(logs.length).toBeGreaterThan(0);
    for (const secret of secrets) {
      expect(urls).not.toContain(secret);
      expect(logs).not.toContain(secret);
    }
    // The one-time password is printed once, on stdout, by design; nothing else is.
    for (const secret of secrets.filter((s) => s !== operator.oneTimePassword)) {
      expect(server.stdout()).not.toContain(secret);
    }
  });
});
