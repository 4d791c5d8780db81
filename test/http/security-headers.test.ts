// Anti-framing, nosniff and no-referrer on every answer a browser renders or loads as a page
// (src/http/security-headers.ts): the portal page and its script and style sheet, the portal API
// (errors included), the reference and the bank callback page. frame-ancestors travels as a
// header: a <meta> Content-Security-Policy cannot carry it.
import { afterAll, describe, expect, test } from "bun:test";
import { startTestServer } from "../support/server.ts";
import { createTestServices } from "../support/services.ts";

const services = await createTestServices();
const server = startTestServer(services);
afterAll(async () => {
  await server.stop();
  await services.database.close();
});

function expectSecurityHeaders(response: Response, what: string) {
  const policy = response.headers.get("Content-Security-Policy") ?? "";
  expect({ what, frameAncestors: /(^|;)\s*frame-ancestors 'none'\s*(;|$)/.test(policy) }).toEqual({
    what,
    frameAncestors: true,
  });
  expect({
    what,
    frame: response.headers.get("X-Frame-Options"),
    sniff: response.headers.get("X-Content-Type-Options"),
    referrer: response.headers.get("Referrer-Policy"),
  }).toEqual({ what, frame: "DENY", sniff: "nosniff", referrer: "no-referrer" });
}

describe("security headers on portal and docs answers", () => {
  test("the portal page, its script and style sheet carry frame-ancestors 'none', DENY, nosniff and no-referrer", async () => {
    const page = await fetch(`${server.baseUrl}/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("<title>Svc portal</title>");
    expectSecurityHeaders(page, "/");
    const assets = [...html.matchAll(/(?:src|href)="(\/chunk-[^"]+)"/g)].map((m) => m[1]);
    expect(assets.length).toBeGreaterThanOrEqual(2);
    for (const asset of assets) {
      const response = await fetch(`${server.baseUrl}${asset}`);
      expect(response.status).toBe(200);
      expect(response.headers.get("Content-Type")).toMatch(/^text\/(javascript|css)/);
      expectSecurityHeaders(response, asset as string);
    }
  });

  test("the portal page answers If-None-Match with 304, still with the headers", async () => {
    const first = await fetch(`${server.baseUrl}/`);
    const etag = first.headers.get("ETag") as string;
    expect(etag).toBeTruthy();
    const again = await fetch(`${server.baseUrl}/`, { headers: { "If-None-Match": etag } });
    expect(again.status).toBe(304);
    expectSecurityHeaders(again, "/ (304)");
  });

  test("the portal API (an error too), the reference, the OpenAPI document and the callback page carry them", async () => {
    for (const path of [
      "/portal/api/me",
      "/portal/api/no-such-route",
      "/v1/docs",
      "/v1/openapi.json",
      "/connect/callback",
    ]) {
      expectSecurityHeaders(await fetch(`${server.baseUrl}${path}`), path);
    }
  });

  test("a page's own policy keeps its directives and gains frame-ancestors", async () => {
    const callback = await fetch(`${server.baseUrl}/connect/callback`);
    expect(callback.headers.get("Content-Security-Policy")).toContain("default-src 'none'");
    const docs = await fetch(`${server.baseUrl}/v1/docs`);
    expect(docs.headers.get("Content-Security-Policy")).toContain("script-src 'self'");
  });
});
