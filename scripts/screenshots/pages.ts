// What `bun run screenshots` photographs: every portal page, each in the state worth reviewing.
// Pure data and page steps (no side effects on import), so test/portal/screenshot-pages.test.ts
// can check this list against the portal's route table (admin-ui/routes.ts).
import type { Page } from "playwright-core";

/** What the seeding made, for the steps that open a page in a particular state. */
export interface Seeded {
  ownerEmail: string;
  /** A verified endpoint whose log has failed and successful deliveries. */
  failingEndpointId: string;
}

export interface Shot {
  /** The PNG's name (without .png), the same at every size. */
  name: string;
  /** Who sees it: nobody signed in, the account owner, or the operator. */
  as: "signed-out" | "owner" | "operator";
  /** The route pattern of admin-ui/routes.ts it shows; null for the signed-out sign-in page. */
  route: string | null;
  /** Opens the page (already signed in as `as`) and brings it to the state to photograph. */
  open(page: Page, baseUrl: string, seeded: Seeded): Promise<void>;
}

/** Goes to a hash route and waits for its heading and for nothing to be loading any more. */
async function openRoute(page: Page, baseUrl: string, route: string, heading: string) {
  await page.goto(`${baseUrl}/#${route}`);
  await page.getByRole("heading", { level: 1, name: heading }).waitFor();
  await settled(page);
}

/** No "Loading…" placeholder left on the page. */
export async function settled(page: Page) {
  await page.waitForFunction(() => document.querySelectorAll(".loading").length === 0);
}

function simple(
  name: string,
  as: Shot["as"],
  route: string,
  heading: string,
  then?: (page: Page) => Promise<void>,
): Shot {
  return {
    name,
    as,
    route,
    async open(page, baseUrl) {
      await openRoute(page, baseUrl, route, heading);
      await then?.(page);
    },
  };
}

export const shots: Shot[] = [
  {
    name: "sign-in",
    as: "signed-out",
    route: null,
    async open(page, baseUrl) {
      await page.goto(baseUrl);
      await page.getByRole("heading", { name: "Sign in to Svc" }).waitFor();
    },
  },
  simple("overview-quick-start", "owner", "/overview", "Overview", async (page) => {
    await page.getByTestId("quick-start").waitFor();
  }),
  simple("keys", "owner", "/keys", "API keys"),
  simple("webhooks", "owner", "/webhooks", "Webhook endpoints", async (page) => {
    await page.getByTestId("delivery").first().waitFor();
  }),
  {
    name: "endpoint-delivery-detail",
    as: "owner",
    route: "/webhooks/:id",
    async open(page, baseUrl, seeded) {
      await page.goto(`${baseUrl}/#/webhooks/${seeded.failingEndpointId}`);
      await page.getByRole("heading", { name: "Delivery log" }).waitFor();
      const failed = page
        .getByTestId("delivery")
        .filter({ has: page.getByTestId("attempt").getByText("HTTP 500") })
        .first();
      await failed.getByRole("button", { name: /^Details/ }).click();
      await failed.getByTestId("signed-body").waitFor();
      await page.getByTestId("delivery-chart-svg").waitFor();
      await settled(page);
    },
  },
  simple("connections", "owner", "/connections", "Bank connections"),
  simple("receiver-kit", "owner", "/receiver-kit", "Receiver kit", async (page) => {
    await page.getByText("Show verify.ts").click();
  }),
  simple("change-password", "owner", "/password", "Change password"),
  simple("operator-accounts", "operator", "/operator/accounts", "Service accounts"),
  simple(
    "operator-accounts-search",
    "operator",
    "/operator/accounts",
    "Service accounts",
    async (page) => {
      await page.getByLabel("Search by id, name, e-mail or connection id").fill("owner");
      const answered = page.waitForResponse((r) =>
        r.url().includes("/operator/accounts?search=owner"),
      );
      await page.getByRole("button", { name: "Search" }).click();
      await answered;
      await settled(page);
    },
  ),
  simple("operator-new-account", "operator", "/operator/new-account", "Create an account"),
  simple("operator-import", "operator", "/operator/import", "Import bank data"),
  simple("operator-mail", "operator", "/operator/mail", "Mail outbox"),
  simple("operator-settings", "operator", "/operator/settings", "Instance settings"),
];
