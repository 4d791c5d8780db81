// The receiver kit in the portal, in Debian's chromium against the
// compiled binary, at desktop and phone sizes: the quick start leads to it, the navigation and
// the webhooks page link it, and each file is shown, copied and downloaded exactly as it is in
// examples/receiver (the binary has no examples/ folder: the texts are inlined at build time).
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { receiverKitFiles } from "../../admin-ui/receiver-kit/files.ts";
import {
  createOwner,
  expectAccessible,
  freshPage,
  openNav,
  ownerPassword,
  portalSuite,
  shot,
  signIn,
  viewports,
} from "../support/portal-ui.ts";
import { makeTempDir } from "../support/temp.ts";

setDefaultTimeout(120_000);

const kitDir = join(import.meta.dir, "../../examples/receiver");
const suite = portalSuite("svc-receiver-kit-ui");

for (const viewport of viewports) {
  describe(`receiver kit at ${viewport.name} size (${viewport.width}px)`, () => {
    test("the quick start links the kit; each file is shown, copied and downloaded exactly as in examples/receiver", async () => {
      const owner = await createOwner(suite.binary, suite.cwd);
      const { context, page } = await freshPage(suite.browser, viewport);
      try {
        await signIn(page, suite.server, owner.email, ownerPassword);
        const quick = page.getByTestId("quick-start");
        await quick.getByRole("link", { name: "receiver kit" }).click();
        await page.getByRole("heading", { level: 1, name: "Receiver kit" }).waitFor();
        expect(await page.title()).toBe("Receiver kit · Svc portal");
        // The run command carries this instance's base URL (without /v1).
        const baseUrl = await page.evaluate(async () => {
          const overview = await fetch("/portal/api/overview", { credentials: "same-origin" });
          return ((await overview.json()) as { baseUrl: string }).baseUrl;
        });
        await page.getByText(`SVC_API_BASE='${baseUrl}'`).waitFor();

        const cards = page.getByTestId("kit-file");
        expect(
          await cards.evaluateAll((list) => list.map((c) => c.getAttribute("data-path"))),
        ).toEqual(receiverKitFiles.map((f) => f.path));
        for (const file of receiverKitFiles) {
          const onDisk = readFileSync(join(kitDir, file.path), "utf8");
          const card = page.locator(`[data-testid="kit-file"][data-path="${file.path}"]`);
          await card.getByText(`Show ${file.path}`).click();
          expect(await card.getByTestId("kit-file-text").textContent()).toBe(onDisk);

          await card.getByRole("button", { name: `Copy ${file.path}` }).click();
          await card.getByRole("button", { name: `Copied ${file.path}` }).waitFor();
          expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(onDisk);

          const [download] = await Promise.all([
            page.waitForEvent("download"),
            card.getByRole("link", { name: `Download ${file.path}` }).click(),
          ]);
          expect(download.suggestedFilename()).toBe(file.fileName);
          const saved = join(makeTempDir("svc-kit-download"), file.fileName);
          await download.saveAs(saved);
          expect(readFileSync(saved, "utf8")).toBe(onDisk);
        }
        await expectAccessible(page, "receiver kit with every file open");
        await shot(page, viewport, "receiver-kit");
      } finally {
        await context.close();
      }
    });

    test("the navigation and the webhooks page lead to the kit", async () => {
      const owner = await createOwner(suite.binary, suite.cwd);
      const { context, page } = await freshPage(suite.browser, viewport);
      try {
        await signIn(page, suite.server, owner.email, ownerPassword);
        await page.getByRole("heading", { name: "Overview" }).waitFor();
        await openNav(page, "Webhooks");
        await page.getByRole("heading", { level: 1, name: "Webhook endpoints" }).waitFor();
        await page.getByRole("main").getByRole("link", { name: "receiver kit" }).click();
        await page.getByRole("heading", { level: 1, name: "Receiver kit" }).waitFor();
        await openNav(page, "Overview");
        await page.getByRole("heading", { name: "Overview" }).waitFor();
        await openNav(page, "Receiver kit");
        await page.getByRole("heading", { level: 1, name: "Receiver kit" }).waitFor();
        // The page is marked current in the navigation (hidden behind Menu on a phone).
        expect(await page.locator('nav a[aria-current="page"]').textContent()).toBe("Receiver kit");
        await expectAccessible(page, "receiver kit, files closed");
      } finally {
        await context.close();
      }
    });
  });
}
