// The portal as an account owner, in a real browser (Debian's chromium via playwright-core)
// against the compiled binary: quick start, health banner, local times, feedback and focus,
// confirmation dialogs, the verification code field and the billing link. Every test runs at
// desktop (1280x800) and phone (375x740) size with locale en-GB in Pacific/Auckland, and axe
// runs on every page and state reached.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { compiledBinary, type StartedBinary, startBinary } from "../support/binary.ts";
import {
  browserLocale,
  browserTimeZone,
  createOwner,
  disableEndpointInDatabase,
  expectAccessible,
  expectFocusNotOnBody,
  expectFocusOnText,
  focused,
  focusSettlesOn,
  freshPage,
  launchChromium,
  openNav,
  ownerPassword,
  shot,
  signIn,
  svcJson,
  type Viewport,
  viewports,
} from "../support/portal-ui.ts";
import { type Receiver, startReceiver } from "../support/receiver.ts";
import { makeTempDir } from "../support/temp.ts";
import { testCertificates } from "../support/webhooks.ts";

const billingUrl = "https://billing.example.com/pay?from=svc";
let binary: string;
let cwd: string;
let server: StartedBinary;
let receiver: Receiver;
let browser: Browser;
let context: BrowserContext | undefined;

beforeAll(async () => {
  const { pki, cert } = await testCertificates();
  receiver = startReceiver(cert);
  binary = await compiledBinary();
  cwd = makeTempDir("svc-owner-ui");
  server = await startBinary(binary, {
    cwd,
    env: {
      SVC_UNSAFE_ALLOW_PRIVATE_TARGETS: "true",
      SVC_DELIVERY_CA_FILE: pki.caFile,
      SVC_BILLING_URL: billingUrl,
      SVC_LOG_LEVEL: "warn",
    },
  });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await receiver?.stop();
  if (server) expect(await server.stop()).toBe(0);
});

async function ownerPage(viewport: Viewport, extra: string[] = []) {
  await context?.close();
  const fresh = await freshPage(browser, viewport);
  context = fresh.context;
  const owner = await createOwner(binary, cwd, extra);
  await signIn(fresh.page, server, owner.email, ownerPassword);
  await fresh.page.getByRole("heading", { name: "Overview" }).waitFor();
  return { page: fresh.page, ...owner };
}

function lastVerificationCode(): string {
  const request = receiver.requests.findLast((r) => JSON.parse(r.body).type === "webhook.verify");
  return JSON.parse(request?.body ?? "{}").data.code as string;
}

async function addEndpoint(page: Page, description: string): Promise<string> {
  await openNav(page, "Webhooks");
  await page.getByLabel("Endpoint URL").fill(receiver.url(`/${description}`));
  await page.getByLabel("Description (optional)").fill(description);
  await page.getByRole("button", { name: "Add endpoint" }).click();
  await page.getByTestId("secret-value").waitFor();
  await page.getByRole("button", { name: "I have stored it safely" }).click();
  await page.getByRole("link", { name: /^verify / }).click();
  await page.getByRole("heading", { name: description }).waitFor();
  return page.url().split("/").at(-1) ?? "";
}

for (const viewport of viewports) {
  describe(`owner portal at ${viewport.name} size (${viewport.width}x${viewport.height})`, () => {
    test("first sign-in shows the quick start with a copyable curl call to this instance and the reference; dismissing it moves focus to the page heading and it stays dismissed on a new sign-in", async () => {
      const { page, email } = await ownerPage(viewport);
      const quick = page.getByTestId("quick-start");
      await quick.waitFor();
      const curl = (await page.getByTestId("quick-start-curl").textContent()) ?? "";
      const apiBase = `http://localhost:${new URL(server.baseUrl).port}/v1`;
      expect(curl).toBe(`curl -H "Authorization: Bearer $SVC_API_KEY" ${apiBase}/accounts`);
      await quick.getByRole("button", { name: "Copy curl command" }).click();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(curl);
      await quick.getByText("curl command copied").waitFor();
      expect(await quick.getByRole("link", { name: "API reference" }).getAttribute("href")).toBe(
        "/v1/docs",
      );
      for (const step of [
        "Connect the sandbox bank",
        "Create an API key",
        "Register a webhook endpoint",
      ])
        await quick.getByRole("link", { name: step }).waitFor();
      await quick.getByText("receiver kit").waitFor();
      await expectAccessible(page, "overview with quick start");
      await shot(page, viewport, "overview-quick-start");

      await quick.getByRole("button", { name: "Dismiss the quick start" }).click();
      await quick.waitFor({ state: "detached" });
      await focusSettlesOn(page, "h1");
      expect(await focused(page)).toEqual({ tag: "h1", text: "Overview" });

      await page.getByRole("button", { name: "Sign out" }).click();
      await signIn(page, server, email, ownerPassword);
      await page.getByRole("heading", { name: "Overview" }).waitFor();
      await page.getByTestId("api-access").waitFor();
      expect(await page.getByTestId("quick-start").count()).toBe(0);
    }, 60_000);

    test("times are in the browser's zone with a relative form and the exact UTC on hover; the account id has a copy button", async () => {
      const { page, accountId } = await ownerPage(viewport);
      await openNav(page, "API keys");
      await page.getByLabel("Name (optional)").fill("ci");
      await page.getByRole("button", { name: "Create key" }).click();
      await page.getByRole("button", { name: "I have stored it safely" }).click();
      const created = page.getByTestId("key-row").getByTestId("time").first();
      await created.waitFor();
      const iso = (await created.getAttribute("datetime")) ?? "";
      const expected = new Intl.DateTimeFormat(browserLocale, {
        dateStyle: "medium",
        timeStyle: "short",
        timeZone: browserTimeZone,
      }).format(new Date(iso));
      const text = (await created.textContent()) ?? "";
      expect(text).toStartWith(expected);
      expect(text).toMatch(/· (now|\d+ seconds? ago)$/);
      expect(await created.getAttribute("title")).toBe(`${iso.slice(0, 19).replace("T", " ")} UTC`);
      // Auckland is 12 or 13 hours ahead: the local hour differs from the UTC hour.
      expect(expected).not.toContain(iso.slice(11, 16));
      await expectAccessible(page, "keys");

      await openNav(page, "Overview");
      await page.getByText(accountId, { exact: true }).waitFor();
      // The term says "Account id"; its value is the id and its Copy button, not the label again.
      const value = page
        .locator("dt", { hasText: "Account id" })
        .locator("xpath=following-sibling::dd[1]");
      expect(((await value.textContent()) ?? "").toLowerCase()).not.toContain("account id");
      await page.getByRole("button", { name: "Copy account id" }).click();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(accountId);
    }, 60_000);

    test("revoking a key asks first in a dialog that says what happens; Escape cancels back to the button; confirming reports beside the row and focus never falls to the body", async () => {
      const { page } = await ownerPage(viewport);
      await openNav(page, "API keys");
      await page.getByLabel("Name (optional)").fill("old");
      await page.getByRole("button", { name: "Create key" }).click();
      // The secret takes focus when it appears; after "stored", the new row does.
      await page.getByTestId("secret-value").waitFor();
      await focusSettlesOn(page, "section");
      expect((await focused(page)).tag).toBe("section");
      await page.getByRole("button", { name: "I have stored it safely" }).click();
      const row = page.getByTestId("key-row").filter({ hasText: "old" });
      await row.waitFor();
      await focusSettlesOn(page, "td");
      expect(await focused(page)).toEqual({ tag: "td", text: "old" });

      const revoke = row.getByRole("button", { name: "Revoke old" });
      await revoke.click();
      const dialog = page.getByRole("dialog", { name: "Revoke the key “old”?" });
      await dialog.getByText("fail at once with 401").waitFor();
      await expectFocusOnText(page, "Cancel");
      expect(await focused(page)).toEqual({ tag: "button", text: "Cancel" });
      await expectAccessible(page, "revoke dialog open");
      await shot(page, viewport, "keys-revoke-dialog");
      await page.keyboard.press("Escape");
      await dialog.waitFor({ state: "hidden" });
      await expectFocusOnText(page, "Revoke");
      await row.getByText("active").waitFor();

      await revoke.click();
      await dialog.getByRole("button", { name: "Revoke key" }).click();
      const said = row.getByTestId("feedback-success");
      await said.getByText("Revoked “old”").waitFor();
      await row.getByText("revoked", { exact: true }).waitFor();
      await expectFocusNotOnBody(page);
      await expectFocusOnText(page, "Revoked “old”");
      await expectAccessible(page, "key revoked");
      // The prefix is one token: after a revoke (a wider Status cell) it still sits on one line.
      const prefix = row.getByTestId("key-prefix");
      const lines = await prefix.evaluate((element) => {
        const height = element.getBoundingClientRect().height;
        const lineHeight = Number.parseFloat(getComputedStyle(element).lineHeight) || 20;
        return Math.round(height / lineHeight);
      });
      expect(lines).toBe(1);
    }, 60_000);

    test("the verification code field takes a pasted code with spaces and lower case; a wrong length is refused in the page without spending an attempt", async () => {
      const { page } = await ownerPage(viewport);
      await addEndpoint(page, "orders");
      await page.getByRole("button", { name: "Send verification code" }).click();
      await page.getByText(/Verification code delivered: HTTP 200 in [\d,]+ ms/).waitFor();
      const state = page.getByTestId("verification-state");
      await state.getByText("5 attempts left.").waitFor();
      const code = lastVerificationCode();
      const input = page.getByLabel("Verification code");
      expect(await input.getAttribute("maxlength")).toBeNull();

      const requests: string[] = [];
      page.on("request", (r) => {
        if (r.url().endsWith("/verify")) requests.push(r.url());
      });
      await input.fill(code.slice(0, 6).toLowerCase());
      await page.getByRole("button", { name: "Verify", exact: true }).click();
      await page.getByText("The code has 8 characters; this has 6. No attempt was used.").waitFor();
      expect(await input.getAttribute("aria-invalid")).toBe("true");
      await focusSettlesOn(page, "input");
      expect((await focused(page)).tag).toBe("input");
      expect(requests).toEqual([]);
      await state.getByText("5 attempts left.").waitFor();
      await expectAccessible(page, "verify wrong length");
      await shot(page, viewport, "endpoint-verify-wrong-length");

      const pasted = ` ${code.slice(0, 4).toLowerCase()} ${code.slice(4).toLowerCase()} `;
      await input.fill(pasted);
      expect(await input.inputValue()).toBe(pasted);
      await page.getByRole("button", { name: "Verify", exact: true }).click();
      await page.getByText("Verified: account events now flow to this endpoint.").waitFor();
      await expectFocusOnText(page, "Verified: account events now flow to this endpoint.");
      expect(requests).toHaveLength(1);
      await page.getByTestId("endpoint-state").getByText("active").waitFor();
    }, 60_000);

    test("pause, rotate secret and remove endpoint each ask in a dialog that says what will happen; outcomes appear beside the controls", async () => {
      const { page } = await ownerPage(viewport);
      await addEndpoint(page, "billing");
      await page.getByRole("button", { name: "Send verification code" }).click();
      await page.getByTestId("verification-state").getByText("5 attempts left.").waitFor();
      await page.getByLabel("Verification code").fill(lastVerificationCode());
      await page.getByRole("button", { name: "Verify", exact: true }).click();
      await page.getByTestId("endpoint-state").getByText("active").waitFor();

      await page.getByRole("button", { name: "Pause" }).click();
      const pause = page.getByRole("dialog", { name: "Pause this endpoint?" });
      await pause.getByText("never delivered").waitFor();
      await expectAccessible(page, "pause dialog open");
      await shot(page, viewport, "endpoint-pause-dialog");
      await pause.getByRole("button", { name: "Pause endpoint" }).click();
      await page.getByTestId("state-feedback").getByText("Paused: nothing is sent").waitFor();
      await page.getByTestId("endpoint-state").getByText("paused").waitFor();
      await expectFocusNotOnBody(page);
      await page.getByRole("button", { name: "Resume" }).click();
      await page.getByTestId("endpoint-state").getByText("active").waitFor();

      await page.getByRole("button", { name: "Rotate secret" }).click();
      const rotate = page.getByRole("dialog", { name: "Issue a new signing secret now?" });
      await rotate.getByText("stops verifying at once").waitFor();
      await expectAccessible(page, "rotate dialog open");
      await rotate.getByRole("button", { name: "Yes, issue a new secret" }).click();
      await page.getByTestId("secret-value").waitFor();
      await expectFocusNotOnBody(page);
      await focusSettlesOn(page, "section");
      expect((await focused(page)).tag).toBe("section");
      await page.getByRole("button", { name: "I have stored it safely" }).click();

      await page.getByRole("button", { name: "Remove", exact: true }).click();
      const remove = page.getByRole("dialog", { name: "Remove this endpoint?" });
      await remove.getByText("delivery log is deleted").waitFor();
      await expectAccessible(page, "remove endpoint dialog open");
      await remove.getByRole("button", { name: "Remove endpoint" }).click();
      await page.getByRole("heading", { name: "Webhook endpoints" }).waitFor();
      await page.getByText("No webhook endpoints yet.").waitFor();
      await expectFocusNotOnBody(page);
    }, 60_000);

    test("a disabled endpoint and a connection that needs the owner show a banner on every page with reason, local date and Enable; the overview checklist is not ticked meanwhile", async () => {
      const { page, accountId } = await ownerPage(viewport);
      const endpointId = await addEndpoint(page, "ledger");
      await page.getByRole("button", { name: "Send verification code" }).click();
      await page.getByTestId("verification-state").getByText("5 attempts left.").waitFor();
      await page.getByLabel("Verification code").fill(lastVerificationCode());
      await page.getByRole("button", { name: "Verify", exact: true }).click();
      await page.getByTestId("endpoint-state").getByText("active").waitFor();
      const disabledAt = Date.now() - 3 * 60_000;
      await disableEndpointInDatabase(cwd, endpointId, disabledAt);
      const connection = await svcJson(binary, cwd, ["sandbox", "connect", "--account", accountId]);
      const connectionId = (connection.connection?.id ?? connection.id) as string;
      await svcJson(binary, cwd, [
        "sandbox",
        "set-status",
        "--connection",
        connectionId,
        "expired",
      ]);

      for (const label of ["Overview", "API keys", "Webhooks", "Connections"]) {
        await openNav(page, label);
        const banner = page.getByTestId("attention");
        await banner.getByText("Needs your attention").waitFor();
        await banner
          .getByTestId("attention-endpoint")
          .getByText("20 consecutive failed deliveries")
          .waitFor();
        await banner.getByTestId("attention-connection").getByText("has expired").waitFor();
        await expectAccessible(page, `banner on ${label}`);
      }
      const when = page.getByTestId("attention-endpoint").getByTestId("time");
      const iso = new Date(disabledAt).toISOString();
      expect(await when.getAttribute("datetime")).toBe(iso);
      expect((await when.textContent()) ?? "").toContain("3 minutes ago");
      await openNav(page, "Overview");
      const item = page.getByTestId("checklist-item").filter({ hasText: "webhook endpoint" });
      await item.getByText("1 of 1 webhook endpoint disabled").waitFor();
      expect(await item.getAttribute("data-done")).toBe("false");
      await shot(page, viewport, "overview-attention");

      await page.getByRole("button", { name: "Enable ledger" }).click();
      await page
        .getByTestId("attention-feedback")
        .getByText("Enabled ledger: new events are sent to it again")
        .waitFor();
      await expectFocusNotOnBody(page);
      await page.getByTestId("attention-endpoint").waitFor({ state: "detached" });
      await page.getByTestId("attention-connection").waitFor();
      await page.reload();
      await page.getByRole("heading", { name: "Overview" }).waitFor();
      await page
        .getByTestId("checklist-item")
        .filter({ hasText: "1 of 1 webhook endpoint verified" })
        .waitFor();
    }, 90_000);

    test("connections: balances in the account's currency, ids with copy buttons, and removing a connection asks first and says what goes", async () => {
      const { page } = await ownerPage(viewport);
      await openNav(page, "Connections");
      await page.getByRole("button", { name: "Connect the sandbox bank" }).click();
      const card = page.getByTestId("connection");
      await card.getByTestId("connection-status").getByText("linked").waitFor();
      await card.getByRole("button", { name: "Sync now" }).click();
      await card.getByText(/Synced: \d+ new transactions/).waitFor();
      // The message comes first; the list reloads after it. en-GB currency formats: a symbol or
      // code before grouped digits with two decimals.
      const money = /^-?(€|£|US\$|\$|[A-Z]{3}\s?)[\d,]+\.\d{2}$/;
      await card.getByTestId("balance").filter({ hasText: money }).first().waitFor();
      const connectionId = (await card.getAttribute("data-connection-id")) ?? "";
      await card.getByText(connectionId, { exact: true }).waitFor();
      await card.getByRole("button", { name: "Copy connection id" }).click();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(connectionId);
      await card.getByRole("button", { name: "Copy account id" }).first().waitFor();
      await expectAccessible(page, "connections");
      await shot(page, viewport, "connections");

      await card.getByRole("button", { name: /^Remove / }).click();
      const dialog = page.getByRole("dialog", { name: /^Remove the connection to / });
      await dialog.getByText("balances and transactions are deleted").waitFor();
      await expectAccessible(page, "remove connection dialog open");
      await dialog.getByRole("button", { name: "Remove connection" }).click();
      await page.getByTestId("removal-feedback").getByText("Removed the connection").waitFor();
      await page.getByText("No bank connections yet.").waitFor();
      await expectFocusNotOnBody(page);
      await expectFocusOnText(page, "Removed the connection");
    }, 60_000);

    test("a 429 shows the service's message beside the button with when to try again", async () => {
      const { page } = await ownerPage(viewport);
      await addEndpoint(page, "limits");
      const send = page.getByRole("button", { name: "Send test event" });
      for (let i = 0; i < 10; i++) {
        await send.click();
        await page.getByText(/Test event delivered: HTTP 200/).waitFor();
      }
      await send.click();
      const refused = page
        .getByRole("region", { name: "Test" })
        .or(page.locator("section", { has: page.getByRole("heading", { name: "Test" }) }))
        .getByTestId("feedback-error");
      await refused.getByText(/The next one is allowed in \d+ s/).waitFor();
      await refused.getByText(/Try again in \d+ s \(at /).waitFor();
      await expectAccessible(page, "429 shown");
      await shot(page, viewport, "endpoint-429");
    }, 60_000);

    test("a failed renewal payment leads to the operator's billing page", async () => {
      const { page } = await ownerPage(viewport, [
        "--status",
        "lapsed",
        "--subscription",
        "past_due",
      ]);
      await page.getByTestId("api-access").getByText("refused: 403 subscription_lapsed").waitFor();
      const link = page.getByTestId("billing-link").getByRole("link", {
        name: "Update your payment details",
      });
      expect(await link.getAttribute("href")).toBe(billingUrl);
      await expectAccessible(page, "overview lapsed");
      await shot(page, viewport, "overview-lapsed");
    }, 60_000);
  });
}
