// The portal's ordinary pages leave the browser console clean: no request of a page the user
// merely opens answers 401 or 404 (a signed-out visitor is shown the sign-in form without a
// refused request, and no page asks for a resource that does not exist), and no script error.
import { describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { operatorRoutes, ownerRoutes } from "../../admin-ui/routes.ts";
import {
  createOwner,
  freshPage,
  ownerPassword,
  portalSuite,
  signIn,
  svcJson,
  viewports,
} from "../support/portal-ui.ts";

const suite = portalSuite("svc-console");

/** Console errors and refused requests (4xx/5xx) of what the page did, as lines. */
function watch(page: Page): string[] {
  const seen: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") seen.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => seen.push(`page error: ${error.message}`));
  page.on("response", (response) => {
    if (response.status() >= 400)
      seen.push(`${response.status()} ${new URL(response.url()).pathname}`);
  });
  return seen;
}

const viewport = viewports[0];

describe("the browser console on ordinary pages", () => {
  test("signed out: opening the portal shows the sign-in form with no refused request or console error", async () => {
    const { context, page } = await freshPage(suite.browser, viewport);
    try {
      const seen = watch(page);
      await page.goto(`${suite.server.baseUrl}/#/keys`);
      await page.getByRole("heading", { name: "Sign in to Svc" }).waitFor();
      await page.waitForLoadState("networkidle");
      expect(seen).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);

  test.each([
    ["an account owner", [], ownerRoutes],
    ["an operator", ["--operator"], [...ownerRoutes, ...operatorRoutes]],
  ] as const)(
    "signed in as %s: every page of the route table opens without a refused request or console error",
    async (_who, flags, routes) => {
      const { email, accountId } = await createOwner(suite.binary, suite.cwd, [...flags]);
      // A connection and an endpoint id for the detail page.
      await svcJson(suite.binary, suite.cwd, ["sandbox", "connect", "--account", accountId]);
      const { context, page } = await freshPage(suite.browser, viewport);
      try {
        const seen = watch(page);
        await signIn(page, suite.server, email, ownerPassword);
        await page.getByRole("heading", { name: "Overview" }).waitFor();
        for (const route of routes) {
          if (route.includes(":")) continue;
          await page.goto(`${suite.server.baseUrl}/#${route}`);
          await page.getByRole("heading", { level: 1 }).first().waitFor();
          await page.waitForLoadState("networkidle");
        }
        expect(seen).toEqual([]);
      } finally {
        await context.close();
      }
    },
    120_000,
  );
});
