// Shared by the portal UI end-to-end files: one compiled binary and one chromium
// per file, a fresh browser context per test with a set locale and time zone (so local times
// are proven), desktop and phone sizes, and small helpers for signing in and checking pages.
// What needs no bun:test lives in portal-session.ts (scripts use it too) and is re-exported.
import { afterAll, beforeAll, expect } from "bun:test";
import type { Browser, Locator, Page } from "playwright-core";
import { seriousAxeFindings } from "./axe.ts";
import { compiledBinary, type StartedBinary, startBinary } from "./binary.ts";
import { screenshot } from "./browser.ts";
import { launchChromium, type Viewport } from "./portal-session.ts";
import { makeTempDir } from "./temp.ts";

export * from "./portal-session.ts";

/** What a portal UI file shares: the binary, its data dir, the server on it, one chromium. */
export interface PortalSuite {
  binary: string;
  cwd: string;
  server: StartedBinary;
  browser: Browser;
}

/**
 * Starts the compiled binary on a fresh data dir (in a temporary directory named after
 * `dirPrefix`) and one chromium before the file's tests; afterwards closes the browser and
 * stops the server, which must exit 0. The fields are set once the file's tests run.
 */
export function portalSuite(dirPrefix: string): PortalSuite {
  const suite = {} as PortalSuite;
  beforeAll(async () => {
    suite.binary = await compiledBinary();
    suite.cwd = makeTempDir(dirPrefix);
    suite.server = await startBinary(suite.binary, {
      cwd: suite.cwd,
      env: { SVC_LOG_LEVEL: "warn" },
    });
    suite.browser = await launchChromium();
  }, 180_000);
  afterAll(async () => {
    await suite.browser?.close();
    if (suite.server) expect(await suite.server.stop()).toBe(0);
  });
  return suite;
}

/** A tap on a touch screen, a click with a mouse: how a person at that size presses it. */
export async function press(viewport: Viewport, target: Locator) {
  if (viewport.touch) await target.tap();
  else await target.click();
}

/** The page is no wider than the window (no sideways scrolling on a phone). */
async function expectFits(page: Page) {
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

/** What has keyboard focus: never <body> after an action. */
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

/** Waits (up to 10 s) for focus to reach an element with this tag name; the caller then asserts. */
export async function focusSettlesOn(page: Page, tag: string) {
  await page
    .waitForFunction((wanted) => document.activeElement?.tagName.toLowerCase() === wanted, tag, {
      timeout: 10_000,
    })
    .catch(() => undefined);
}

/** Waits for focus to reach the element whose text contains `text` (it moves after a re-render). */
export async function expectFocusOnText(page: Page, text: string) {
  await page
    .waitForFunction(
      (wanted) => (document.activeElement?.textContent ?? "").includes(wanted),
      text,
      { timeout: 10_000 },
    )
    .catch(() => undefined);
  expect((await focused(page)).text).toContain(text);
}

export async function shot(page: Page, viewport: Viewport, name: string) {
  await screenshot(page, `ui-${viewport.name}-${name}`);
}
