// Shared by the portal UI end-to-end files (issue 19): one compiled binary and one chromium
// per file, a fresh browser context per test with a set locale and time zone (so local times
// are proven), desktop and phone sizes, and small helpers for signing in and checking pages.
import { Database } from "bun:sqlite";
import { expect } from "bun:test";
import { join } from "node:path";
import { SQL } from "bun";
import {
  type Browser,
  type BrowserContext,
  chromium,
  type Locator,
  type Page,
} from "playwright-core";
import { seriousAxeFindings } from "./axe.ts";
import { runBinary, type StartedBinary } from "./binary.ts";
import { chromiumFlags, chromiumPath, screenshot } from "./browser.ts";
import { engineEnvFor } from "./engine.ts";

export const viewports = [
  { name: "desktop", width: 1280, height: 800, touch: false },
  // A touch screen, but not chromium's mobile emulation: that would zoom out to fit a page
  // wider than the window and hide exactly what expectFits looks for.
  { name: "phone", width: 375, height: 740, touch: true },
] as const;
export type Viewport = (typeof viewports)[number];

export const browserLocale = "en-GB";
export const browserTimeZone = "Pacific/Auckland";

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath, headless: true, args: chromiumFlags });
}

export async function freshPage(
  browser: Browser,
  viewport: Viewport,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    viewport: { width: viewport.width, height: viewport.height },
    hasTouch: viewport.touch,
    locale: browserLocale,
    timezoneId: browserTimeZone,
    permissions: ["clipboard-read", "clipboard-write"],
  });
  context.setDefaultTimeout(15_000);
  return { context, page: await context.newPage() };
}

/** Runs a CLI command of the binary against the served instance and parses its --json. */
export async function svcJson(binary: string, cwd: string, args: string[]) {
  const result = await runBinary(binary, [...args, "--json"], cwd, { SVC_LOG_LEVEL: "warn" });
  if (result.code !== 0) throw new Error(`svc ${args.join(" ")} failed: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

export const ownerPassword = "owner password for the ui tests";

/** A new account whose owner has a known password; returns its e-mail and account id. */
export async function createOwner(
  binary: string,
  cwd: string,
  extra: string[] = [],
): Promise<{ email: string; accountId: string }> {
  const email = `owner-${crypto.randomUUID().slice(0, 8)}@example.com`;
  await Bun.write(join(cwd, "ui-owner-password.txt"), ownerPassword);
  const created = await svcJson(binary, cwd, [
    "accounts",
    "create",
    "--email",
    email,
    "--password-file",
    "ui-owner-password.txt",
    ...extra,
  ]);
  return { email, accountId: created.id as string };
}

export async function signIn(page: Page, server: StartedBinary, email: string, password: string) {
  await page.goto(server.baseUrl);
  await page.getByRole("heading", { name: "Sign in to Svc" }).waitFor();
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

export async function openNav(page: Page, label: string) {
  // At phone width the navigation sits behind the Menu button.
  const menu = page.getByRole("button", { name: "Menu" });
  if ((await menu.isVisible()) && (await menu.getAttribute("aria-expanded")) === "false")
    await menu.click();
  await page.getByRole("navigation", { name: "Portal" }).getByRole("link", { name: label }).click();
}

/** A tap on a touch screen, a click with a mouse: how a person at that size presses it. */
export async function press(viewport: Viewport, target: Locator) {
  if (viewport.touch) await target.tap();
  else await target.click();
}

/** The page is no wider than the window (no sideways scrolling on a phone). */
export async function expectFits(page: Page) {
  const sizes = await page.evaluate(() => {
    const window_ = window.innerWidth;
    // What sticks out (elements, then text running out of its box), so a failure names it.
    const name = (element: Element | null) =>
      element
        ? `${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ""}${element.className ? `.${String(element.className).split(" ").join(".")}` : ""}`
        : "?";
    const outside = [...document.querySelectorAll("body, body *")]
      .filter((element) => element.getBoundingClientRect().right > window_ + 0.5)
      .map(
        (element) => `${name(element)} right=${Math.round(element.getBoundingClientRect().right)}`,
      );
    const texts = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const range = document.createRange();
    for (let node = texts.nextNode(); node; node = texts.nextNode()) {
      range.selectNodeContents(node);
      const right = range.getBoundingClientRect().right;
      if (right > window_ + 0.5)
        outside.push(
          `text "${(node.textContent ?? "").slice(0, 40)}" in ${name(node.parentElement)} right=${Math.round(right)}`,
        );
    }
    return {
      scroll: document.documentElement.scrollWidth,
      window: window_,
      outside: outside.slice(-8),
    };
  });
  if (sizes.scroll > sizes.window)
    expect({ scroll: sizes.scroll, outside: sizes.outside }).toEqual({
      scroll: sizes.window,
      outside: [],
    });
}

/** axe finds nothing critical or serious in the page as it is now; also the width check. */
export async function expectAccessible(page: Page, state: string) {
  const findings = await seriousAxeFindings(page);
  expect({ state, findings }).toEqual({ state, findings: [] });
  await expectFits(page);
}

/** What has keyboard focus: never <body> after an action (issue 19). */
export async function focused(page: Page): Promise<{ tag: string; text: string }> {
  return page.evaluate(() => {
    const active = document.activeElement;
    return {
      tag: active?.tagName.toLowerCase() ?? "none",
      text: (active?.textContent ?? "").trim().slice(0, 200),
    };
  });
}

export async function expectFocusNotOnBody(page: Page) {
  // Focus settles after the re-render that follows an action.
  await page.waitForFunction(
    () => document.activeElement !== null && document.activeElement !== document.body,
  );
  expect((await focused(page)).tag).not.toBe("body");
}

/**
 * Sets an endpoint disabled as 20 failed deliveries would (spec 3), straight in the served
 * instance's database, so a test need not wait for 20 deliveries to fail.
 */
export async function disableEndpointInDatabase(
  cwd: string,
  endpointId: string,
  disabledAtMs: number,
) {
  const env = await engineEnvFor(cwd);
  const reason = "20 consecutive failed deliveries";
  if (env.SVC_DATABASE_URL) {
    const sql = new SQL(env.SVC_DATABASE_URL);
    await sql`UPDATE webhook_endpoints SET status = 'disabled', disabled_at = ${disabledAtMs}, disabled_reason = ${reason}, failure_count = 20 WHERE id = ${endpointId}`;
    await sql.close();
    return;
  }
  const db = new Database(join(cwd, "data", "svc.db"));
  db.run("PRAGMA busy_timeout = 5000");
  db.run(
    "UPDATE webhook_endpoints SET status = 'disabled', disabled_at = ?, disabled_reason = ?, failure_count = 20 WHERE id = ?",
    [disabledAtMs, reason, endpointId],
  );
  db.close();
}

export async function shot(page: Page, viewport: Viewport, name: string) {
  await screenshot(page, `ui-${viewport.name}-${name}`);
}
