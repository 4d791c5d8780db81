// Driving the portal in Debian's chromium without bun:test, so scripts (scripts/screenshots.ts)
// share it with the UI end-to-end tests (portal-ui.ts re-exports all of it): the viewports, one
// chromium, a fresh context per page with a set locale and time zone, CLI calls to the served
// binary, signing in, the navigation, and a shortcut that disables an endpoint in the database.
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { SQL } from "bun";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { runBinary, type StartedBinary } from "./binary.ts";
import { chromiumFlags, chromiumPath } from "./browser.ts";
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
