// /v1/docs in the compiled binary, in a real browser: Scalar's bundle from inside the
// binary renders every operation and every webhook, shows curl, Python and TypeScript samples,
// and the page asks nothing of any other host (every such request is recorded and refused), with
// no page errors, no CSP violation but the one justified below, and no serious axe findings.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";
import { seriousAxeFindings } from "../support/axe.ts";
import { compiledBinary, type StartedBinary, startBinary } from "../support/binary.ts";
import { launchBrowser, screenshot, type TestBrowser } from "../support/browser.ts";
import { makeTempDir } from "../support/temp.ts";

interface Violation {
  directive: string;
  blocked: string;
  source: string;
}

let server: StartedBinary;
let browser: TestBrowser;
let page: Page;
const foreignRequests: string[] = [];
const pageErrors: string[] = [];
const consoleErrors: string[] = [];

beforeAll(async () => {
  const binary = await compiledBinary();
  server = await startBinary(binary, { cwd: makeTempDir("svc-docs") });
  browser = await launchBrowser();
  page = browser.page;
  // A 4.9 MB bundle on a shared two-core machine: generous waits, nothing sleeps.
  page.setDefaultTimeout(45_000);
  const origin = new URL(server.baseUrl).origin;
  // Anything that would leave the machine (fonts, telemetry, CDNs) is recorded and refused.
  await browser.context.route("**/*", (route) => {
    const url = route.request().url();
    if (new URL(url).origin === origin) return route.continue();
    foreignRequests.push(url);
    return route.abort();
  });
  page.on("pageerror", (error) => pageErrors.push(String(error)));
  page.on("console", (message) => {
    if (message.type() === "error") consoleErrors.push(message.text());
  });
  await page.addInitScript(() => {
    const seen: unknown[] = [];
    (globalThis as unknown as { cspViolations: unknown[] }).cspViolations = seen;
    document.addEventListener("securitypolicyviolation", (event) =>
      seen.push({
        directive: event.effectiveDirective,
        blocked: event.blockedURI,
        source: event.sourceFile,
      }),
    );
  });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  expect(await server?.stop()).toBe(0);
});

const operations = [
  ["Accounts", "List accounts"],
  ["Accounts", "Get an account"],
  ["Accounts", "Get an account's balance"],
  ["Transactions", "List an account's transactions"],
  ["Connections", "List connections"],
  ["Connections", "Get a connection"],
] as const;
const webhooks = [
  "New transactions arrived for an account",
  "An account's balance changed",
  "A connection moved to a new status",
  "Verification code for a new endpoint",
  "Test event",
];

const sidebar = () => page.locator("aside, nav").first();

test("the reference renders every operation and every webhook from the binary's own bundle", async () => {
  const response = await page.goto(`${server.baseUrl}/v1/docs`);
  expect(response?.status()).toBe(200);
  await page.getByRole("heading", { name: "Svc bank-data API" }).waitFor();
  for (const group of ["Transactions", "Connections", "Webhooks"]) {
    await sidebar().getByText(group, { exact: true }).click();
  }
  for (const name of [...operations.map(([, summary]) => summary), ...webhooks]) {
    await sidebar().getByText(name, { exact: true }).click();
    await page.locator("main").getByRole("heading", { name, exact: true }).waitFor();
  }
  // The webhook shows its signature headers and the example signature can be read off the page.
  const main = page.locator("main");
  await expect(main.getByText("Svc-Webhook-Signature").first().isVisible()).resolves.toBe(true);
  await screenshot(page, "docs-webhook", { fullPage: false });
}, 120_000);

test("curl is the default sample; Python requests and TypeScript appear when selected", async () => {
  await sidebar().getByText("List an account's transactions", { exact: true }).click();
  const section = page.locator("main");
  await section.getByRole("heading", { name: "List an account's transactions" }).waitFor();
  const code = () => section.locator("pre").filter({ hasText: "/transactions" }).first();
  await expect(code().textContent()).resolves.toContain("curl");
  const chooseSample = async (option: string) => {
    await section
      .getByRole("button", { name: /Shell Curl|Python Requests|TypeScript/ })
      .first()
      .click();
    await page.getByRole("option", { name: option, exact: true }).click();
  };
  await chooseSample("Requests");
  await expect(code().textContent()).resolves.toContain("requests.get(");
  await screenshot(page, "docs-python-sample", { fullPage: false });
  await chooseSample("TypeScript");
  const typescript = await code().textContent();
  expect(typescript).toContain("await fetch(");
  expect(typescript).toContain("process.env.SVC_API_KEY");
  await chooseSample("Curl");
  await expect(code().textContent()).resolves.toContain("curl");
}, 60_000);

test("nothing was asked of another host, no page error, and no CSP violation but zod's eval probe", async () => {
  expect(foreignRequests).toEqual([]);
  expect(pageErrors).toEqual([]);
  const violations = (await page.evaluate(
    () => (globalThis as unknown as { cspViolations: unknown[] }).cspViolations,
  )) as Violation[];
  // The bundle's zod probes `Function("")` once to decide whether to compile validators; CSP
  // refuses it (no 'unsafe-eval'), zod catches that and interprets instead. Nothing else may be
  // refused.
  const bundle = /\/v1\/docs\/scalar\.[0-9a-f]{16}\.js$/;
  const unexpected = violations.filter(
    (v) => !(v.directive === "script-src" && v.blocked === "eval" && bundle.test(v.source)),
  );
  expect(unexpected).toEqual([]);
  expect(violations.length).toBeLessThanOrEqual(1);
  expect(consoleErrors.filter((text) => !text.includes("unsafe-eval"))).toEqual([]);
});

test("no critical or serious accessibility findings on the reference", async () => {
  // axe is evaluated through the DevTools protocol: the page's CSP (rightly) refuses the inline
  // script tag support/axe.ts would otherwise add.
  const source = readFileSync(
    createRequire(import.meta.url).resolve("axe-core/axe.min.js"),
    "utf8",
  );
  await page.goto(`${server.baseUrl}/v1/docs`);
  await page.getByRole("heading", { name: "Svc bank-data API" }).waitFor();
  await page.evaluate(source);
  expect(await seriousAxeFindings(page)).toEqual([]);
  // And an operation with its parameters, sample and responses on screen.
  await sidebar().getByText("Get an account's balance", { exact: true }).click();
  await page.locator("main").getByRole("heading", { name: "Get an account's balance" }).waitFor();
  expect(await seriousAxeFindings(page)).toEqual([]);
}, 90_000);
