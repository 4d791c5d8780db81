// The portal as an operator, in a real browser (Debian's chromium via playwright-core) against
// the compiled binary: the Import page (upload a file, paste JSON; every problem of a bad
// document listed and nothing written; what a good one imported), Create account (the
// one-time password shown once), the search across accounts, ids with copy buttons, and
// removing any account's connection after a confirmation. Every test runs at desktop
// (1280x800, mouse) and phone (375x740, touch) size; axe runs on every page and state reached
// and the page never scrolls sideways. Connections are made with the CLI (`svc sandbox
// connect`, `svc import`), as an operator would.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { compiledBinary, type StartedBinary, startBinary } from "../support/binary.ts";
import {
  createOwner,
  expectAccessible,
  expectFocusNotOnBody,
  focused,
  freshPage,
  launchChromium,
  openNav,
  ownerPassword,
  press,
  shot,
  signIn,
  svcJson,
  type Viewport,
  viewports,
} from "../support/portal-ui.ts";
import { makeTempDir } from "../support/temp.ts";

setDefaultTimeout(120_000);

let binary: string;
let cwd: string;
let server: StartedBinary;
let browser: Browser;
let context: BrowserContext | undefined;

beforeAll(async () => {
  binary = await compiledBinary();
  cwd = makeTempDir("svc-operator-ui");
  server = await startBinary(binary, { cwd, env: { SVC_LOG_LEVEL: "warn" } });
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  if (server) expect(await server.stop()).toBe(0);
});

/** A fresh browser context signed in as a new operator, on the Accounts page. */
async function operatorPage(viewport: Viewport): Promise<Page> {
  await context?.close();
  const fresh = await freshPage(browser, viewport);
  context = fresh.context;
  // A loaded machine may be slow to answer; every wait is for a condition, never a time.
  context.setDefaultTimeout(30_000);
  const operator = await createOwner(binary, cwd, ["--operator"]);
  await signIn(fresh.page, server, operator.email, ownerPassword);
  await fresh.page.getByRole("heading", { name: "Overview" }).waitFor();
  return fresh.page;
}

/** Shows only the account(s) matching `term` on the Accounts page. */
async function search(page: Page, viewport: Viewport, term: string) {
  await page.getByLabel("Search by id, name, e-mail or connection id").fill(term);
  await press(viewport, page.getByRole("button", { name: "Search", exact: true }));
}

async function clipboard(page: Page): Promise<string> {
  return page.evaluate(() => navigator.clipboard.readText());
}

/** Writes an operator-ingest file and imports it with the CLI; returns the connections made. */
async function importWithCli(accountId: string, document: unknown) {
  const file = `import-${crypto.randomUUID().slice(0, 8)}.json`;
  await Bun.write(join(cwd, file), JSON.stringify(document));
  const summary = await svcJson(binary, cwd, ["import", "--account", accountId, file]);
  return summary.connections as { id: string; external_id: string }[];
}

async function connectionIds(accountId: string): Promise<string[]> {
  const list = await svcJson(binary, cwd, ["connections", "list", "--account", accountId]);
  return (list as { id: string }[]).map((c) => c.id);
}

function goodDocument(tag: string) {
  return {
    connections: [
      {
        id: `acme-${tag}`,
        institution: `Acme Bank ${tag}`,
        status: "linked",
        accounts: [
          {
            id: `checking-${tag}`,
            name: "Checking",
            type: "current",
            currency: "EUR",
            iban: "DE89370400440532013000",
            balance: { current: "2500.50", available: "2450.50", as_of: "2026-01-15T08:00:00Z" },
            transactions: [
              {
                id: `t1-${tag}`,
                status: "booked",
                amount: "-42.10",
                booking_date: "2026-01-14",
                description: "Card payment Corner Bakery",
              },
              {
                id: `t2-${tag}`,
                status: "booked",
                amount: "1800",
                booking_date: "2026-01-15",
                description: "Salary",
              },
            ],
          },
          { id: `savings-${tag}`, name: "Savings", type: "savings", currency: "EUR" },
        ],
      },
    ],
  };
}

/** Four deliberate problems in four places: each must be listed. */
const badDocument = {
  connections: [
    {
      id: "broken",
      institution: "Broken Bank",
      status: "linked",
      accounts: [
        {
          id: "acc-1",
          name: "Checking",
          type: "chequing",
          currency: "EURO",
          transactions: [
            {
              id: "t-1",
              status: "booked",
              amount: "12,50",
              booking_date: "2026-01-14",
              description: "Comma for a point",
            },
            {
              id: "t-2",
              status: "booked",
              amount: "-3.00",
              booking_date: "2026-13-40",
              description: "No such month",
            },
          ],
        },
      ],
    },
  ],
};
const badProblems = [
  ["connections[0].accounts[0].type", "acc-1"],
  ["connections[0].accounts[0].currency", "acc-1"],
  ["connections[0].accounts[0].transactions[0].amount", "t-1"],
  ["connections[0].accounts[0].transactions[1].booking_date", "t-2"],
] as const;

for (const viewport of viewports) {
  describe(`operator portal at ${viewport.name} size (${viewport.width}x${viewport.height})`, () => {
    test("Import: a pasted document with problems lists every one and writes nothing; an uploaded good file shows what was imported, with ids to copy", async () => {
      const page = await operatorPage(viewport);
      const target = await createOwner(binary, cwd);
      await openNav(page, "Import");
      await page.getByRole("heading", { name: "Import bank data" }).waitFor();
      await page.getByLabel("Account", { exact: true }).selectOption(target.accountId);
      await expectAccessible(page, "import page");

      await page.getByLabel("Or paste the JSON").fill(JSON.stringify(badDocument, null, 2));
      await press(viewport, page.getByRole("button", { name: "Import", exact: true }));
      const problems = page.getByTestId("import-problems").getByRole("listitem");
      await page.getByTestId("import-problems").waitFor();
      const listed = await problems.allTextContents();
      expect(listed).toHaveLength(badProblems.length);
      for (const [index, [path, id]] of badProblems.entries())
        expect(listed[index]).toStartWith(`${path} (id ${id}): `);
      await page.getByTestId("import-error").waitFor();
      // The outcome takes focus (once rendered): the operator reads it next.
      await page.waitForFunction(
        () => document.activeElement?.getAttribute("data-testid") === "import-outcome",
      );
      expect(await connectionIds(target.accountId)).toEqual([]);
      await expectAccessible(page, "import problems listed");
      await shot(page, viewport, "operator-import-problems");

      await page.getByLabel("Upload a JSON file").setInputFiles({
        name: "acme.json",
        mimeType: "application/json",
        buffer: Buffer.from(JSON.stringify(goodDocument(viewport.name))),
      });
      await page.getByText("Read acme.json into the box below.").waitFor();
      expect(JSON.parse(await page.getByLabel("Or paste the JSON").inputValue())).toEqual(
        goodDocument(viewport.name),
      );
      await press(viewport, page.getByRole("button", { name: "Import", exact: true }));
      const result = page.getByTestId("import-result");
      await result
        .getByText("Imported 1 connection: 2 new transactions, ", { exact: false })
        .waitFor();
      expect(await page.getByTestId("import-problems").count()).toBe(0);
      const [connectionId] = await connectionIds(target.accountId);
      const imported = result.getByTestId("imported-connection");
      await imported.getByText(`acme-${viewport.name}`).waitFor();
      await imported.getByText(connectionId ?? "missing", { exact: true }).waitFor();
      await press(viewport, imported.getByRole("button", { name: "Copy connection id" }));
      await imported.getByRole("button", { name: "Copied connection id" }).waitFor();
      expect(await clipboard(page)).toBe(connectionId ?? "missing");
      await imported.getByText("connection id copied").waitFor();
      await expectAccessible(page, "import result");
      await shot(page, viewport, "operator-import-result");
    });

    test("Create account: the one-time password is shown once with a copy button, works for sign-in, and the account appears in the list", async () => {
      const page = await operatorPage(viewport);
      const email = `new-${viewport.name}-${crypto.randomUUID().slice(0, 6)}@example.com`;
      const name = `Acme ${viewport.name} ${crypto.randomUUID().slice(0, 6)}`;
      await openNav(page, "Create account");
      await page.getByRole("heading", { name: "Create an account" }).waitFor();
      await expectAccessible(page, "create account form");
      await page.getByLabel("E-mail of the first user").fill(email);
      await page.getByLabel("Account name (optional)").fill(name);
      await press(viewport, page.getByRole("button", { name: "Create account" }));

      const secret = page.getByTestId("secret-once");
      const password = (await secret.getByTestId("secret-value").textContent()) ?? "";
      expect(password.length).toBeGreaterThanOrEqual(12);
      await secret.getByText(email).waitFor();
      // The secret takes focus (once rendered), so keyboard and screen-reader users land on it.
      await page.waitForFunction(
        () => document.activeElement?.getAttribute("data-testid") === "secret-once",
      );
      await press(viewport, secret.getByRole("button", { name: "Copy one-time password" }));
      await secret.getByRole("button", { name: "Copied one-time password" }).waitFor();
      expect(await clipboard(page)).toBe(password);
      await expectAccessible(page, "one-time password shown");
      await shot(page, viewport, "operator-new-account-password");

      // It is real: the new user signs in with it and must choose their own.
      const signedIn = await fetch(`${server.baseUrl}/portal/api/session`, {
        method: "POST",
        headers: { Origin: server.baseUrl, "Content-Type": "application/json" },
        body: JSON.stringify({ email, password }),
      });
      expect(signedIn.status).toBe(201);
      const me = await fetch(`${server.baseUrl}/portal/api/me`, {
        headers: {
          Origin: server.baseUrl,
          Cookie: (signedIn.headers.get("set-cookie") ?? "").split(";")[0] ?? "",
        },
      });
      const user = ((await me.json()) as { user: { email: string; mustChangePassword: boolean } })
        .user;
      expect(user).toMatchObject({ email, mustChangePassword: true });

      await press(viewport, secret.getByRole("button", { name: "I have stored it safely" }));
      await secret.waitFor({ state: "detached" });
      await page.getByLabel("E-mail of the first user").waitFor();
      expect(await page.content()).not.toContain(password);

      // The same e-mail again: the problem is shown at the e-mail field, tied to it.
      const emailField = page.getByLabel("E-mail of the first user");
      await emailField.fill(email);
      await press(viewport, page.getByRole("button", { name: "Create account" }));
      await page.locator(".field-error").getByText("already exists").waitFor();
      expect(await emailField.getAttribute("aria-invalid")).toBe("true");
      const describedBy = (await emailField.getAttribute("aria-describedby")) ?? "";
      expect(await page.locator(`[id="${describedBy.split(" ").at(-1)}"]`).textContent()).toContain(
        "already exists",
      );
      await expectAccessible(page, "create account with an e-mail problem at its field");

      await openNav(page, "Accounts");
      await page.getByRole("heading", { name: "Service accounts" }).waitFor();
      const card = page.getByTestId("account-card").filter({ hasText: name });
      await card.getByText(email).waitFor();
      await card.getByText("sandbox", { exact: true }).waitFor();
      // Shown once: not in the list, nor anywhere the page can read it again.
      expect(await page.content()).not.toContain(password);
      await expectAccessible(page, "accounts list with the new account");
    });

    test("search across accounts by e-mail, account id and connection id; ids are shown with copy buttons that put the exact id on the clipboard", async () => {
      const page = await operatorPage(viewport);
      const first = await createOwner(binary, cwd);
      const second = await createOwner(binary, cwd);
      const sandbox = await svcJson(binary, cwd, [
        "sandbox",
        "connect",
        "--account",
        second.accountId,
        "--seed",
        "3",
      ]);
      const connectionId = sandbox.id as string;
      await openNav(page, "Accounts");
      await page.getByRole("heading", { name: "Service accounts" }).waitFor();
      const cards = page.getByTestId("account-card");
      await cards.filter({ hasText: second.email }).waitFor();

      await search(page, viewport, first.email.toUpperCase());
      await cards.filter({ hasText: second.email }).waitFor({ state: "detached" });
      await cards.filter({ hasText: first.email }).waitFor();
      expect(await cards.count()).toBe(1);
      await expectAccessible(page, "search by e-mail");

      await search(page, viewport, second.accountId);
      await cards.filter({ hasText: first.email }).waitFor({ state: "detached" });
      await cards.filter({ hasText: second.email }).waitFor();
      expect(await cards.count()).toBe(1);

      await search(page, viewport, "no-such-account-anywhere");
      await page.getByText("No account matches.").waitFor();
      expect(await cards.count()).toBe(0);
      await expectAccessible(page, "search without a match");

      await search(page, viewport, connectionId);
      const card = cards.filter({ hasText: second.email });
      await card.waitFor();
      expect(await cards.count()).toBe(1);
      await card.getByText(second.accountId, { exact: true }).waitFor();
      await press(viewport, card.getByRole("button", { name: "Copy account id" }));
      await card.getByRole("button", { name: "Copied account id" }).waitFor();
      expect(await clipboard(page)).toBe(second.accountId);

      await press(viewport, card.getByRole("button", { name: "Connections" }));
      const connection = card.locator(
        `[data-testid="operator-connection"][data-connection-id="${connectionId}"]`,
      );
      await connection.getByTestId("connection-status").getByText("linked").waitFor();
      await connection.getByText("Svc Sandbox Bank", { exact: true }).waitFor();
      await connection.getByText(connectionId, { exact: true }).waitFor();
      await press(viewport, connection.getByRole("button", { name: "Copy connection id" }));
      await connection.getByRole("button", { name: "Copied connection id" }).waitFor();
      expect(await clipboard(page)).toBe(connectionId);
      await connection.getByText("connection id copied").waitFor();

      const bankAccounts = connection.getByTestId("operator-bank-account");
      await bankAccounts.first().waitFor();
      const ownView = await svcJson(binary, cwd, [
        "connections",
        "list",
        "--account",
        second.accountId,
      ]);
      expect((ownView as { id: string }[]).map((c) => c.id)).toEqual([connectionId]);
      const bankAccountId =
        (await bankAccounts.first().getByTestId("copy-id-value").textContent()) ?? "";
      expect(bankAccountId).toMatch(/^[0-9a-f-]{36}$/);
      await press(viewport, bankAccounts.first().getByRole("button", { name: /bank account id/ }));
      await bankAccounts.first().getByRole("button", { name: "Copied bank account id" }).waitFor();
      expect(await clipboard(page)).toBe(bankAccountId);
      // Operators see metadata: no amount of money appears.
      expect(await connection.textContent()).not.toMatch(/\d\.\d\d|€|\$/);
      await expectAccessible(page, "account connections open");
      await shot(page, viewport, "operator-account-connections");
    });

    test("removing a connection asks first in a dialog that says what goes; Escape keeps it; confirming removes it and only it, reported beside the list", async () => {
      const page = await operatorPage(viewport);
      const owner = await createOwner(binary, cwd);
      const sandbox = await svcJson(binary, cwd, [
        "sandbox",
        "connect",
        "--account",
        owner.accountId,
      ]);
      const [imported] = await importWithCli(owner.accountId, goodDocument(viewport.name));
      const keptId = sandbox.id as string;
      const removedId = imported?.id ?? "missing";
      const bank = `Acme Bank ${viewport.name}`;

      await openNav(page, "Accounts");
      await search(page, viewport, owner.email);
      const card = page.getByTestId("account-card").filter({ hasText: owner.email });
      await card.waitFor();
      await press(viewport, card.getByRole("button", { name: "Connections" }));
      const item = (id: string) =>
        card.locator(`[data-testid="operator-connection"][data-connection-id="${id}"]`);
      await item(removedId).getByText(bank, { exact: true }).waitFor();
      await item(keptId).waitFor();

      const remove = item(removedId).getByRole("button", {
        name: `Remove ${bank} of ${owner.email}`,
      });
      await press(viewport, remove);
      const dialog = page.getByRole("dialog", {
        name: `Remove the connection to ${bank} of ${owner.email}?`,
      });
      await dialog.getByText("balances and transactions are deleted").waitFor();
      await dialog.getByText("This cannot be undone").waitFor();
      // Focus starts on the safe answer.
      expect(await focused(page)).toEqual({ tag: "button", text: "Cancel" });
      await expectAccessible(page, "remove connection dialog open");
      await shot(page, viewport, "operator-remove-connection-dialog");
      await page.keyboard.press("Escape");
      await dialog.waitFor({ state: "hidden" });
      // Back on the button that opened it (focus settles after the dialog closed).
      await page.waitForFunction(
        (label) => document.activeElement?.getAttribute("aria-label") === label,
        `Remove ${bank} of ${owner.email}`,
      );
      expect(await connectionIds(owner.accountId)).toContain(removedId);

      await press(viewport, remove);
      await press(viewport, dialog.getByRole("button", { name: "Remove connection" }));
      const said = card.getByTestId("removal-feedback").getByTestId("feedback-success");
      await said.getByText(`Removed the connection to ${bank} of ${owner.email}`).waitFor();
      await item(removedId).waitFor({ state: "detached" });
      await item(keptId).getByTestId("connection-status").getByText("linked").waitFor();
      expect(await connectionIds(owner.accountId)).toEqual([keptId]);
      // Focus goes to the outcome, never back to <body>.
      await expectFocusNotOnBody(page);
      await page.waitForFunction(() =>
        document.activeElement?.textContent?.startsWith("Removed the connection"),
      );
      await expectAccessible(page, "connection removed");
      await shot(page, viewport, "operator-connection-removed");
    });
  });
}
