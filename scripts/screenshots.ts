// bun run screenshots: a PNG of every portal page (scripts/screenshots/pages.ts) at desktop
// (1280 px) and phone (375 px) width, for review; written to screenshots/ (git-ignored).
// It builds the binary, serves it on a fresh temporary SQLite database, seeds realistic data
// through the CLI and the portal API (an owner with keys, an endpoint whose deliveries partly
// fail, a disabled endpoint so the banner shows, sandbox connections, one of them expired; an
// operator), and drives Debian's chromium with playwright-core (never a downloaded browser).
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import type { Page } from "playwright-core";
import { systemClock } from "../src/core/clock.ts";
import { openDatabase } from "../src/db/open.ts";
import { queueDisabledNotice } from "../src/webhooks/delivery/disable-notice.ts";
import { compiledBinary, type StartedBinary, startBinary } from "../test/support/binary.ts";
import { chromiumPath } from "../test/support/browser.ts";
import { dropTestDatabases, engineEnvFor } from "../test/support/engine.ts";
import { createTestPki, loopbackNames } from "../test/support/pki.ts";
import {
  createOwner,
  disableEndpointInDatabase,
  freshPage,
  launchChromium,
  ownerPassword,
  signIn,
  svcJson,
  viewports,
} from "../test/support/portal-session.ts";
import { type ReceivedRequest, startReceiver } from "../test/support/receiver.ts";
import { makeTempDir } from "../test/support/temp.ts";
import { waitUntil } from "../test/support/wait.ts";
import { type Seeded, type Shot, settled, shots } from "./screenshots/pages.ts";

const repoRoot = join(import.meta.dir, "..");
const outDir = join(repoRoot, "screenshots");

if (!existsSync(chromiumPath)) {
  console.error(`${chromiumPath} is missing: run bash scripts/ensure-test-deps.sh first.`);
  process.exit(1);
}

/** The portal API from inside a signed-in page (same origin, session cookie). */
async function portalApi<T>(page: Page, method: string, path: string, body?: unknown) {
  const answer = await page.evaluate(
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
  );
  if (answer.status >= 300)
    throw new Error(`${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body as T;
}

const eventType = (r: ReceivedRequest) => JSON.parse(r.body).type as string;

async function verifiedEndpoint(
  page: Page,
  url: string,
  description: string,
  received: () => ReceivedRequest[],
): Promise<string> {
  const path = new URL(url).pathname;
  const created = await portalApi<{ endpoint: { id: string } }>(page, "POST", "/endpoints", {
    url,
    description,
  });
  const id = created.endpoint.id;
  await portalApi(page, "POST", `/endpoints/${id}/send-code`);
  const sent = received().findLast((r) => r.path === path && eventType(r) === "webhook.verify");
  const code = JSON.parse(sent?.body ?? "{}").data.code as string;
  await portalApi(page, "POST", `/endpoints/${id}/verify`, { code });
  return id;
}

/**
 * Disables an endpoint as 20 failed deliveries would, three hours ago, without waiting for them:
 * the state in the database (as the UI tests do) and its owner's notice in the mail outbox,
 * queued by the delivery engine's own function.
 */
async function disableWithNotice(
  cwd: string,
  endpoint: { id: string; serviceAccountId: string; url: string },
) {
  const disabledAt = new Date(Date.now() - 3 * 3600_000);
  await disableEndpointInDatabase(cwd, endpoint.id, disabledAt.getTime());
  const { SVC_DATABASE_URL } = await engineEnvFor(cwd);
  const database = openDatabase({ dataDir: join(cwd, "data"), databaseUrl: SVC_DATABASE_URL });
  try {
    await database.db.write((tx) =>
      queueDisabledNotice(
        tx,
        systemClock,
        endpoint,
        "20 consecutive failed deliveries",
        disabledAt,
      ),
    );
  } finally {
    await database.close();
  }
}

async function seed(
  binary: string,
  cwd: string,
  server: StartedBinary,
  receiverUrl: (path: string) => string,
  received: () => ReceivedRequest[],
): Promise<{ seeded: Seeded; operatorEmail: string }> {
  const owner = await createOwner(binary, cwd, [
    "--name",
    "Acme Bookkeeping",
    "--status",
    "active",
    "--subscription",
    "active",
  ]);
  await createOwner(binary, cwd, ["--name", "Northwind Traders"]);
  const operatorEmail = `operator-${crypto.randomUUID().slice(0, 8)}@example.com`;
  await svcJson(binary, cwd, [
    "accounts",
    "create",
    "--email",
    operatorEmail,
    "--name",
    "Operations",
    "--password-file",
    "ui-owner-password.txt",
    "--operator",
  ]);

  const browser = await launchChromium();
  const { context, page } = await freshPage(browser, viewports[0]);
  try {
    await signIn(page, server, owner.email, ownerPassword);
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    const used = await portalApi<{ key: string }>(page, "POST", "/keys", {
      name: "Production server",
    });
    await portalApi(page, "POST", "/keys", { name: "Nightly reconciliation" });
    const revoked = await portalApi<{ apiKey: { id: string } }>(page, "POST", "/keys", {
      name: "Old laptop",
    });
    await portalApi(page, "POST", `/keys/${revoked.apiKey.id}/revoke`);
    // One key has been used, so the list shows a "last used" time.
    await fetch(`${server.baseUrl}/v1/accounts`, {
      headers: { Authorization: `Bearer ${used.key}` },
    });

    const failingEndpointId = await verifiedEndpoint(
      page,
      receiverUrl("/orders"),
      "Orders service",
      received,
    );
    await verifiedEndpoint(page, receiverUrl("/ledger"), "Ledger", received);
    const legacyUrl = receiverUrl("/legacy");
    const disabled = await verifiedEndpoint(page, legacyUrl, "Legacy CRM", received);
    await disableWithNotice(cwd, {
      id: disabled,
      serviceAccountId: owner.accountId,
      url: legacyUrl,
    });

    const linked = await portalApi<{ id: string }>(page, "POST", "/connections/sandbox", {});
    await portalApi(page, "POST", `/connections/${linked.id}/sync`);
    const expiring = await portalApi<{ id: string }>(page, "POST", "/connections/sandbox", {
      seed: 7,
    });
    await portalApi(page, "POST", `/connections/${expiring.id}/sync`);
    await svcJson(binary, cwd, ["sandbox", "set-status", "expired", "--connection", expiring.id]);

    // The sync's events reach both verified endpoints; /orders refuses balance events (500).
    await waitUntil(
      async () => {
        const log = await portalApi<{ data: { attempts: { statusCode: number | null }[] }[] }>(
          page,
          "GET",
          `/endpoints/${failingEndpointId}/deliveries?limit=200`,
        );
        const codes = log.data.flatMap((d) => d.attempts.map((a) => a.statusCode));
        return codes.includes(500) && codes.includes(200);
      },
      "failed and successful deliveries in the log",
      60_000,
    );
    return { seeded: { ownerEmail: owner.email, failingEndpointId }, operatorEmail };
  } finally {
    await context.close();
    await browser.close();
  }
}

async function main() {
  const started = Date.now();
  console.log("building the binary…");
  const binary = await compiledBinary();
  const cwd = makeTempDir("svc-screenshots");
  const pki = await createTestPki();
  const cert = await pki.issue(loopbackNames);
  const receiver = startReceiver(cert, (request) => {
    const type = eventType(request);
    const refuse = request.path === "/orders" && type === "account.balance.updated";
    return new Response(null, { status: refuse ? 500 : 200 });
  });
  const server = await startBinary(binary, {
    cwd,
    env: {
      SVC_UNSAFE_ALLOW_PRIVATE_TARGETS: "true",
      SVC_DELIVERY_CA_FILE: pki.caFile,
      SVC_LOG_LEVEL: "warn",
    },
  });
  const written: string[] = [];
  try {
    console.log(`serving on ${server.baseUrl}; seeding…`);
    const { seeded, operatorEmail } = await seed(
      binary,
      cwd,
      server,
      (path) => receiver.url(path),
      () => receiver.requests,
    );
    rmSync(outDir, { recursive: true, force: true });
    const browser = await launchChromium();
    try {
      for (const viewport of viewports) {
        const dir = join(outDir, viewport.name);
        mkdirSync(dir, { recursive: true });
        // One signed-in context per role and size; the sign-in page in one of its own.
        for (const as of ["signed-out", "owner", "operator"] as const) {
          const mine = shots.filter((shot: Shot) => shot.as === as);
          const { context, page } = await freshPage(browser, viewport);
          try {
            if (as !== "signed-out") {
              const email = as === "owner" ? seeded.ownerEmail : operatorEmail;
              await signIn(page, server, email, ownerPassword);
              await page.getByRole("heading", { name: "Overview" }).waitFor();
            }
            for (const shot of mine) {
              await shot.open(page, server.baseUrl, seeded);
              await settled(page);
              const path = join(dir, `${shot.name}.png`);
              await page.screenshot({ path, fullPage: true });
              written.push(path);
              console.log(`  ${relative(repoRoot, path)}`);
            }
          } finally {
            await context.close();
          }
        }
      }
    } finally {
      await browser.close();
    }
  } finally {
    await server.stop();
    await receiver.stop();
    // SVC_TEST_ENGINE=postgres: the fresh database goes with the run (SQLite: the temp dir).
    await dropTestDatabases();
  }
  const seconds = Math.round((Date.now() - started) / 1000);
  console.log(
    `${written.length} screenshots (${shots.length} pages x ${viewports.length} sizes) in ${relative(repoRoot, outDir)}/ (${viewports.map((v) => `${v.name}/ ${v.width} px`).join(", ")}), ${seconds} s`,
  );
}

await main();
