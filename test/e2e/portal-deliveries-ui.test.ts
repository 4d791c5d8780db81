// Debugging deliveries in the portal end to end: the compiled binary delivering to a real HTTPS
// receiver on loopback, driven in Debian's chromium at a desktop (1280x800) and a phone
// (375x740) size. Each size has its own account: it opens a delivery (exact body, headers,
// attempts), copies the body, retries now, resends (and meets the resend limit's 429), filters
// the log by type, outcome, endpoint and event id, reads the 24 h chart's summary, and saves
// an endpoint's event-type filter that the delivery engine then honours. axe runs on every
// state reached; the page never scrolls sideways.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { seriousAxeFindings } from "../support/axe.ts";
import { compiledBinary, runBinary, type StartedBinary, startBinary } from "../support/binary.ts";
import { launchBrowser, screenshot, screenshotDir, type TestBrowser } from "../support/browser.ts";
import { type Receiver, startReceiver } from "../support/receiver.ts";
import { makeTempDir } from "../support/temp.ts";
import { testCertificates } from "../support/webhooks.ts";

setDefaultTimeout(120_000);

const password = "owner password for the deliveries e2e test";
let binary: string;
let cwd: string;
let server: StartedBinary;
let receiver: Receiver;
/** Receiver paths whose account events are answered 500 (verify and test always get 200). */
const failingPaths = new Set<string>();

async function svc(args: string[]) {
  const result = await runBinary(binary, [...args, "--json"], cwd, { SVC_LOG_LEVEL: "warn" });
  if (result.code !== 0) throw new Error(`svc ${args.join(" ")} failed: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

beforeAll(async () => {
  const { pki, cert } = await testCertificates();
  receiver = startReceiver(cert, (request) => {
    const type = JSON.parse(request.body).type as string;
    const failing = !type.startsWith("webhook.") && failingPaths.has(request.path);
    return new Response(null, { status: failing ? 500 : 200 });
  });
  binary = await compiledBinary();
  cwd = makeTempDir("svc-deliveries-e2e");
  await Bun.write(join(cwd, "password.txt"), password);
  server = await startBinary(binary, {
    cwd,
    env: {
      SVC_UNSAFE_ALLOW_PRIVATE_TARGETS: "true",
      SVC_DELIVERY_CA_FILE: pki.caFile,
      SVC_LOG_LEVEL: "warn",
    },
  });
}, 180_000);

afterAll(async () => {
  await receiver?.stop();
  if (server) expect(await server.stop()).toBe(0);
});

/** The portal API from inside the signed-in page (same origin, session cookie). */
async function portalApi<T>(page: Page, method: string, path: string, body?: unknown) {
  return page.evaluate(
    async ({ method, path, body }) => {
      const response = await fetch(`/portal/api${path}`, {
        method,
        credentials: "same-origin",
        headers: body === undefined ? {} : { "Content-Type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, body: await response.json() };
    },
    { method, path, body },
  ) as Promise<{ status: number; body: T }>;
}

async function expectAccessible(page: Page, state: string) {
  const findings = await seriousAxeFindings(page);
  expect({ state, findings }).toEqual({ state, findings: [] });
}

async function expectNoSidewaysScroll(page: Page) {
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow).toBeLessThanOrEqual(0);
}

/** Registers and verifies an endpoint at `path` through the portal API. */
async function verifiedEndpoint(page: Page, path: string, description: string) {
  const created = await portalApi<{ endpoint: { id: string } }>(page, "POST", "/endpoints", {
    url: receiver.url(path),
    description,
  });
  expect(created.status).toBe(201);
  const id = created.body.endpoint.id;
  expect((await portalApi(page, "POST", `/endpoints/${id}/send-code`)).status).toBe(200);
  const verify = receiver.requests.findLast(
    (r) => r.path === path && JSON.parse(r.body).type === "webhook.verify",
  );
  const code = JSON.parse(verify?.body ?? "{}").data.code as string;
  expect((await portalApi(page, "POST", `/endpoints/${id}/verify`, { code })).status).toBe(200);
  return id;
}

function received(path: string, type?: string) {
  return receiver.requests.filter(
    (r) => r.path === path && (type === undefined || JSON.parse(r.body).type === type),
  );
}

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

const sizes = [
  { name: "desktop", viewport: { width: 1280, height: 800 } },
  { name: "phone", viewport: { width: 375, height: 740 } },
] as const;

for (const size of sizes) {
  describe(`the delivery log at ${size.name} size (${size.viewport.width}x${size.viewport.height})`, () => {
    let browser: TestBrowser;
    let page: Page;
    const email = `owner-${size.name}@example.com`;
    const pathA = `/${size.name}-orders`;
    const pathB = `/${size.name}-ledger`;
    const ids = { a: "", b: "", connection: "", eventId: "", deliveryId: "" };

    beforeAll(async () => {
      await svc(["accounts", "create", "--email", email, "--password-file", "password.txt"]);
      browser = await launchBrowser({ viewport: size.viewport });
      await browser.context.grantPermissions(["clipboard-read", "clipboard-write"], {
        origin: server.baseUrl,
      });
      page = browser.page;
      await page.goto(server.baseUrl);
      await page.getByLabel("E-mail").fill(email);
      await page.getByLabel("Password").fill(password);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("heading", { name: "Overview" }).waitFor();
      ids.a = await verifiedEndpoint(page, pathA, "Orders service");
      ids.b = await verifiedEndpoint(page, pathB, "Ledger");
      // Account events to A fail first, so A has a pending delivery to retry.
      failingPaths.add(pathA);
      const connected = await portalApi<{ id: string }>(page, "POST", "/connections/sandbox", {});
      expect(connected.status).toBe(201);
      ids.connection = connected.body.id;
      const synced = await portalApi(page, "POST", `/connections/${ids.connection}/sync`);
      expect(synced.status).toBe(200);
      await until(
        () => received(pathA, "account.balance.updated").length > 0,
        "the first balance event at A",
      );
      await until(
        () => received(pathB, "account.balance.updated").length > 0,
        "the first balance event at B",
      );
    });

    afterAll(async () => {
      await browser?.close();
    });

    test("a delivery opens to its exact signed body, the headers each attempt sent and its attempts; Copy copies the exact bytes", async () => {
      await page.goto(`${server.baseUrl}/#/webhooks/${ids.a}`);
      await page.getByRole("heading", { name: "Delivery log" }).waitFor();
      const item = page
        .locator('[data-testid="delivery"][data-event-type="account.balance.updated"]')
        .filter({ has: page.getByTestId("attempt").getByText("HTTP 500") })
        .first();
      await item.waitFor();
      ids.deliveryId = (await item.getAttribute("data-delivery-id")) ?? "";
      await item.getByRole("button", { name: /^Details/ }).click();
      const detail = item.getByTestId("delivery-detail");
      const body = detail.getByTestId("signed-body");
      await body.waitFor();
      // A sync raises one balance event per bank account: find the one this delivery carries.
      const attempt = detail.getByTestId("attempt-detail").first();
      ids.eventId = (await attempt.getByTestId("header-Svc-Webhook-Id").textContent()) ?? "";
      const sent = received(pathA).find((r) => r.headers["svc-webhook-id"] === ids.eventId);
      // Pretty-printed on screen, the same JSON as the signed bytes.
      expect(JSON.parse((await body.textContent()) ?? "")).toEqual(JSON.parse(sent?.body ?? ""));
      expect(await body.textContent()).toContain('\n  "type": "account.balance.updated"');
      await attempt.getByTestId("attempt-result").getByText("HTTP 500").waitFor();
      await attempt
        .getByTestId("attempt-duration")
        .getByText(/^\d{1,3}(,\d{3})* ms$/)
        .waitFor();
      // The shared time format: local time and relative form, the exact UTC of the instant on hover.
      const attemptTime = attempt.getByTestId("time").first();
      const attemptAt = (await attemptTime.getAttribute("datetime")) ?? "";
      expect(await attemptTime.getAttribute("title")).toBe(
        `${new Date(attemptAt).toISOString().slice(0, 19).replace("T", " ")} UTC`,
      );
      expect(await attemptTime.textContent()).toMatch(/ · .*(ago|now)/);
      expect(await attempt.getByTestId("header-Svc-Webhook-Signature").textContent()).toBe(
        sent?.headers["svc-webhook-signature"] as string,
      );
      expect(await attempt.getByTestId("header-Svc-Webhook-Timestamp").textContent()).toBe(
        sent?.headers["svc-webhook-timestamp"] as string,
      );
      expect(await attempt.getByTestId("header-Svc-Webhook-Id").textContent()).toBe(ids.eventId);
      await detail.getByTestId("next-attempt").waitFor();
      // Focus moved to the opened detail, not back to <body>.
      expect(await page.evaluate(() => document.activeElement?.tagName)).toBe("H3");

      const copy = detail.getByRole("button", { name: "Copy signed body" });
      await copy.click();
      await detail.getByRole("button", { name: "Copied signed body" }).waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(sent?.body as string);
      await expectNoSidewaysScroll(page);
      await expectAccessible(page, "delivery detail open");
      await screenshot(page, `deliveries-${size.name}-detail`);
      await item.screenshot({
        path: join(screenshotDir, `deliveries-${size.name}-detail-item.png`),
      });
    });

    test("Retry now sends the pending delivery at once and says so next to the button; the retry's attempt appears", async () => {
      failingPaths.delete(pathA);
      const item = page.locator(`[data-testid="delivery"][data-delivery-id="${ids.deliveryId}"]`);
      const before = received(pathA, "account.balance.updated").length;
      await item.getByRole("button", { name: "Retry now" }).click();
      await item
        .getByTestId("delivery-action-result")
        .getByText("Retry started: the next attempt is being made now.")
        .waitFor();
      // Focus goes to the result next to the button, never back to <body>.
      expect(await page.evaluate(() => document.activeElement?.getAttribute("data-testid"))).toBe(
        "delivery-action-result",
      );
      await until(
        () => received(pathA, "account.balance.updated").length > before,
        "the retried delivery",
      );
      await item.locator('[data-testid="attempt-detail"][data-outcome="succeeded"]').waitFor();
      await page
        .locator(
          `[data-testid="delivery"][data-delivery-id="${ids.deliveryId}"][data-status="succeeded"]`,
        )
        .waitFor();
      await expectAccessible(page, "after retry now");
    });

    test("Resend sends the same event again as a new delivery, announced next to the button", async () => {
      const item = page.locator(`[data-testid="delivery"][data-delivery-id="${ids.deliveryId}"]`);
      const sameEvent = () =>
        received(pathA).filter((r) => r.headers["svc-webhook-id"] === ids.eventId).length;
      const before = sameEvent();
      await item.getByRole("button", { name: "Resend" }).click();
      const result = item.getByTestId("delivery-action-result");
      await result.getByText(/^Resent: a new delivery of the same event/).waitFor();
      expect(await result.getAttribute("aria-live")).toBe("polite");
      await until(() => sameEvent() > before, "the resent event");
      await page
        .locator('[data-testid="delivery"]')
        .filter({ hasText: "(resent)" })
        .first()
        .waitFor();
      await expectAccessible(page, "after resend");
    });

    if (size.name === "desktop") {
      test("past 60 resends an hour the button shows the service's 429 message and when to try again", async () => {
        const path = `/endpoints/${ids.a}/deliveries/${ids.deliveryId}/resend`;
        let newest = "";
        for (;;) {
          const answer = await portalApi<{ delivery: { id: string } }>(page, "POST", path);
          if (answer.status === 429) break;
          expect(answer.status).toBe(201);
          newest = answer.body.delivery.id;
        }
        // The newest resend heads the log; it is an account event that can be resent too.
        await page.getByRole("button", { name: "Refresh" }).click();
        const item = page.locator(`[data-testid="delivery"][data-delivery-id="${newest}"]`);
        await item.getByRole("button", { name: /^Details/ }).click();
        await item.getByTestId("signed-body").waitFor();
        await item.getByRole("button", { name: "Resend" }).click();
        await item
          .getByTestId("delivery-action-result")
          .getByText(/at most 60 per hour.* Try again in \d+ (min|h)/)
          .waitFor();
        await expectAccessible(page, "resend refused with 429");
        await screenshot(page, `deliveries-${size.name}-429`);
      });
    }

    test("the 24 h chart is an SVG with a readable summary and a table of the same numbers", async () => {
      const chart = page.getByTestId("delivery-chart");
      const svg = chart.getByRole("img");
      await svg.waitFor();
      expect(await svg.evaluate((e) => e.tagName.toLowerCase())).toBe("svg");
      await until(
        async () => /[1-9]\d* failed attempts/.test((await svg.getAttribute("aria-label")) ?? ""),
        "a chart label that counts the failure",
      );
      expect(await svg.getAttribute("aria-label")).toMatch(
        /^Last 24 hours: \d+ successful and \d+ failed attempts; most failures \(\d+\) in the hour from .+\.$/,
      );
      expect(await page.locator("canvas").count()).toBe(0);
      await chart.getByText("Show as a table").click();
      expect(await chart.locator("tbody tr").count()).toBe(24);
      await expectNoSidewaysScroll(page);
      await expectAccessible(page, "chart with its table open");
      await screenshot(page, `deliveries-${size.name}-chart`, { fullPage: false });
    });

    test("the log filters by event type, outcome and event id (a partial id is refused in the page) and pages with Load more", async () => {
      const items = page.locator('[data-testid="delivery"]');
      await page.getByLabel("Event type", { exact: true }).selectOption("account.balance.updated");
      await until(
        async () =>
          (await items.count()) > 0 &&
          (await items.evaluateAll((list) =>
            list.every((e) => e.getAttribute("data-event-type") === "account.balance.updated"),
          )),
        "only balance deliveries",
      );
      await page.getByLabel("Outcome").selectOption("succeeded");
      await until(
        async () =>
          (await items.count()) > 0 &&
          (await items.evaluateAll((list) =>
            list.every(
              (e) =>
                e.getAttribute("data-status") === "succeeded" &&
                e.getAttribute("data-event-type") === "account.balance.updated",
            ),
          )),
        "only succeeded balance deliveries",
      );
      await expectAccessible(page, "filtered by type and outcome");
      await page.getByLabel("Event type", { exact: true }).selectOption("");
      await page.getByLabel("Outcome").selectOption("");

      const search = page.getByLabel("Event id", { exact: true });
      await search.fill(ids.eventId.slice(0, 8));
      await page.getByRole("button", { name: "Search" }).click();
      await page.getByText("Enter a whole event id").waitFor();
      expect(await search.getAttribute("aria-invalid")).toBe("true");
      await expectAccessible(page, "event id refused");
      await search.fill(ids.eventId.toUpperCase());
      await page.getByRole("button", { name: "Search" }).click();
      await until(
        async () =>
          (await items.count()) >= 2 &&
          (await items.evaluateAll(
            (list, eventId) =>
              list.every((e) => e.textContent?.includes(`event id ${eventId}`) === true),
            ids.eventId,
          )),
        "only the searched event's deliveries (the first and its resends)",
      );
      await page.getByRole("button", { name: "Clear" }).click();
      // More than one page of 20: resend until the endpoint's log has a second page.
      for (;;) {
        const first = await portalApi<{ nextCursor: string | null }>(
          page,
          "GET",
          `/endpoints/${ids.a}/deliveries?limit=20`,
        );
        if (first.body.nextCursor) break;
        const resent = await portalApi(
          page,
          "POST",
          `/endpoints/${ids.a}/deliveries/${ids.deliveryId}/resend`,
        );
        expect(resent.status).toBe(201);
      }
      await page.getByRole("button", { name: "Refresh" }).click();
      const loadMore = page.getByRole("button", { name: "Load more" });
      await loadMore.waitFor();
      const shown = await items.count();
      await loadMore.click();
      await until(async () => (await items.count()) > shown, "an older page appended");
      // Focus moves to the first row of the page just loaded.
      await until(
        () =>
          page.evaluate(
            () =>
              Boolean(document.activeElement?.closest("[data-testid=delivery]")) &&
              (document.activeElement?.textContent ?? "").startsWith("Details"),
          ),
        "focus on the first loaded row",
      );
      await expectNoSidewaysScroll(page);
      await screenshot(page, `deliveries-${size.name}-log`);
    });

    test("the account's log on the Webhooks page filters by endpoint", async () => {
      await page.goto(`${server.baseUrl}/#/webhooks`);
      await page.getByRole("heading", { name: "Deliveries to all endpoints" }).waitFor();
      const items = page.locator('[data-testid="delivery"]');
      await items.first().waitFor();
      await page.getByLabel("Endpoint", { exact: true }).selectOption(ids.b);
      await until(
        async () =>
          (await items.count()) > 0 &&
          (await items.evaluateAll((list) =>
            list.every((e) => e.textContent?.includes("to Ledger") === true),
          )),
        "only Ledger deliveries",
      );
      await expectNoSidewaysScroll(page);
      await expectAccessible(page, "account log filtered by endpoint");
      await screenshot(page, `deliveries-${size.name}-all-endpoints`);
    });

    test("an event-type filter saved on the endpoint page is honoured: the unticked type is not delivered there, the other endpoint still gets it", async () => {
      await page.goto(`${server.baseUrl}/#/webhooks/${ids.b}`);
      const filter = page.getByTestId("event-type-filter");
      await filter.getByText("webhook.test always reach the endpoint").waitFor();
      const box = filter.getByRole("checkbox", { name: /connection\.status\.changed/ });
      expect(await box.isChecked()).toBe(true);
      await box.uncheck();
      await filter.getByRole("button", { name: "Save event types" }).click();
      await filter
        .getByTestId("event-types-result")
        .getByText(
          "Saved: this endpoint receives account.balance.updated, account.transactions.available.",
        )
        .waitFor();
      await expectAccessible(page, "event types saved");
      await page.reload();
      await filter.waitFor();
      expect(
        await filter.getByRole("checkbox", { name: /connection\.status\.changed/ }).isChecked(),
      ).toBe(false);
      expect(
        await filter.getByRole("checkbox", { name: /account\.balance\.updated/ }).isChecked(),
      ).toBe(true);

      // Connecting the sandbox raised connection.status.changed for both before the filter.
      const atA = received(pathA, "connection.status.changed").length;
      const atB = received(pathB, "connection.status.changed").length;
      await svc(["sandbox", "set-status", "--connection", ids.connection, "expired"]);
      await until(
        () => received(pathA, "connection.status.changed").length > atA,
        "the new connection.status.changed at A",
      );
      const eventId = JSON.parse(received(pathA, "connection.status.changed").at(-1)?.body ?? "{}")
        .id as string;
      // Deliveries are fanned out when the event is written, so B's absence is final now.
      expect(received(pathB, "connection.status.changed")).toHaveLength(atB);
      const log = await portalApi<{ data: unknown[] }>(page, "GET", `/deliveries?event=${eventId}`);
      expect(log.body.data.map((d) => (d as { endpointId: string }).endpointId)).toEqual([ids.a]);
      await expectNoSidewaysScroll(page);
      await screenshot(page, `deliveries-${size.name}-event-types`);
    });
  });
}
