// A real browser for portal end-to-end tests: Debian's chromium (installed by
// scripts/ensure-test-deps.sh) driven by playwright-core, which never downloads a browser.
// Each run gets a fresh profile directory.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { makeTempDir } from "./temp.ts";

export const chromiumPath = "/usr/bin/chromium";

export const chromiumFlags = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface TestBrowser {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

export async function launchBrowser(
  options: { viewport?: { width: number; height: number } } = {},
): Promise<TestBrowser> {
  // launchPersistentContext is how playwright takes a --user-data-dir: a fresh one per run.
  const context = await chromium.launchPersistentContext(makeTempDir("svc-chromium"), {
    executablePath: chromiumPath,
    headless: true,
    args: chromiumFlags,
    viewport: options.viewport ?? { width: 1280, height: 800 },
    // Timeouts for waiting on visible state; nothing in the flow sleeps.
    timeout: 15_000,
  });
  context.setDefaultTimeout(15_000);
  const page = context.pages()[0] ?? (await context.newPage());
  return { context, page, close: () => context.close() };
}

export const screenshotDir = join(import.meta.dir, "../../test-artifacts/screenshots");

/**
 * Saves a screenshot for reviewers (git-ignored, overwritten on every run): the full page, or
 * only what the viewport shows.
 */
export async function screenshot(
  page: Page,
  name: string,
  options: { fullPage?: boolean } = {},
): Promise<string> {
  mkdirSync(screenshotDir, { recursive: true });
  const path = join(screenshotDir, `${name}.png`);
  await page.screenshot({ path, fullPage: options.fullPage ?? true });
  return path;
}
