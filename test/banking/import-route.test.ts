import { afterAll, describe, expect, test } from "bun:test";
import type { MiddlewareHandler } from "hono";
import { createImportRoutes } from "../../src/banking/import/routes.ts";
import { createApp } from "../../src/http/app.ts";
import { ApiError } from "../../src/http/errors.ts";
import invalidFixture from "../fixtures/import/invalid.json" with { type: "json" };
import validFixture from "../fixtures/import/valid.json" with { type: "json" };
import { setup, tableContents } from "./helpers.ts";

/** Stands in for the portal's operator session (issue 6): a header names the operator. */
const testOperator: MiddlewareHandler = async (c, next) => {
  if (c.req.header("X-Test-Operator") !== "yes")
    throw new ApiError("session_required", "Sign in as an operator.");
  await next();
};

const s = setup();
const app = createApp(s.services);
app.route("/portal/api/operator/import", createImportRoutes(s.services, testOperator));
const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: app.fetch });
const url = (account = s.accountId) =>
  `http://127.0.0.1:${server.port}/portal/api/operator/import?account=${account}`;
afterAll(() => server.stop(true));

function post(body: string, headers: Record<string, string> = {}, account?: string) {
  return fetch(url(account), {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Test-Operator": "yes", ...headers },
    body,
  });
}

describe("operator import route (same JSON as svc import)", () => {
  test("refuses a caller who is not an operator, writing nothing", async () => {
    const response = await post(JSON.stringify(validFixture), { "X-Test-Operator": "no" });
    expect(response.status).toBe(401);
    expect((await response.json()).error.code).toBe("session_required");
    expect(tableContents(s.services).connections).toHaveLength(0);
  });

  test("imports a document, then the same document again changes nothing", async () => {
    const first = await post(JSON.stringify(validFixture));
    expect(first.status).toBe(200);
    const body = await first.json();
    expect(body).toMatchObject({
      serviceAccountId: s.accountId,
      newTransactions: 4,
      eventsRaised: 6,
    });
    const before = tableContents(s.services);
    const again = await post(JSON.stringify(validFixture));
    expect(await again.json()).toMatchObject({ newTransactions: 0, eventsRaised: 0 });
    expect(tableContents(s.services)).toEqual(before);
  });

  test("an invalid document answers 400 with every problem and writes nothing", async () => {
    const before = tableContents(s.services);
    const response = await post(JSON.stringify(invalidFixture));
    expect(response.status).toBe(400);
    const { error } = await response.json();
    expect(error.code).toBe("invalid_request");
    expect(error.problems).toHaveLength(6);
    expect(error.problems[1]).toEqual({
      path: "connections[0].accounts[0].transactions[1].amount",
      recordId: "bad-amount",
      message: 'must be a signed decimal string such as "-12.30"',
    });
    expect(tableContents(s.services)).toEqual(before);
  });

  test("a body that is not JSON, the wrong content type and a bad account id are clear 400s", async () => {
    const notJson = await post("{ nope");
    expect(notJson.status).toBe(400);
    expect((await notJson.json()).error.message).toContain("not valid JSON");
    const form = await post("a=b", { "Content-Type": "application/x-www-form-urlencoded" });
    expect(form.status).toBe(400);
    expect((await form.json()).error.message).toContain("Content-Type: application/json");
    const badAccount = await post(JSON.stringify(validFixture), {}, "not-a-uuid");
    expect(badAccount.status).toBe(400);
    expect((await badAccount.json()).error.message).toContain("account");
  });

  test("a document over the size limit is 413 and is not read", async () => {
    const small = createApp(s.services);
    small.route("/import", createImportRoutes(s.services, testOperator, { maxBytes: 100 }));
    const response = await small.request(`/import?account=${s.accountId}`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Test-Operator": "yes" },
      body: JSON.stringify(validFixture),
    });
    expect(response.status).toBe(413);
    expect((await response.json()).error.code).toBe("payload_too_large");
  });

  test("an unknown service account is 404", async () => {
    const response = await post(
      JSON.stringify(validFixture),
      {},
      "6f1c0000-0000-4000-8000-000000000000",
    );
    expect(response.status).toBe(404);
  });
});
