import { afterAll, describe, expect, test } from "bun:test";
import { createImportRoutes } from "../../src/portal/routes/import-routes.ts";
import { createApp } from "../../src/server/app.ts";
import invalidFixture from "../fixtures/import/invalid.json" with { type: "json" };
import validFixture from "../fixtures/import/valid.json" with { type: "json" };
import { portalClient, signedInOwner } from "../support/portal.ts";
import { startTestServer } from "../support/server.ts";
import { setup, tableContents } from "./helpers.ts";

const s = await setup();
const server = startTestServer(s.services);
afterAll(() => server.stop());
const operator = await signedInOwner(s.services, server.baseUrl, { isOperator: true });
const path = (account = s.accountId) => `/operator/import?account=${account}`;

function post(body: string, headers: Record<string, string> = {}, account?: string) {
  return operator.client.request(
    "POST",
    path(account),
    undefined,
    {
      "Content-Type": "application/json",
      ...headers,
    },
    body,
  );
}

describe("operator import route (same JSON as svc import)", () => {
  test("refuses a caller who is not an operator, writing nothing", async () => {
    const anonymous = await portalClient(server.baseUrl).request("POST", path(), validFixture);
    expect(anonymous.status).toBe(401);
    expect((await anonymous.json()).error.code).toBe("session_required");
    const owner = await signedInOwner(s.services, server.baseUrl);
    const refused = await owner.client.request("POST", path(), validFixture);
    expect(refused.status).toBe(403);
    expect((await tableContents(s.services)).connections).toHaveLength(0);
  });

  test("imports a document, then the same document again changes nothing", async () => {
    const first = await post(JSON.stringify(validFixture));
    expect(first.status).toBe(200);
    const body = await first.json();
    expect(body).toMatchObject({
      service_account_id: s.accountId,
      new_transactions: 4,
      events_raised: 6,
    });
    const before = await tableContents(s.services);
    const again = await post(JSON.stringify(validFixture));
    expect(await again.json()).toMatchObject({ new_transactions: 0, events_raised: 0 });
    expect(await tableContents(s.services)).toEqual(before);
  });

  test("an invalid document answers 400 with every problem and writes nothing", async () => {
    const before = await tableContents(s.services);
    const response = await post(JSON.stringify(invalidFixture));
    expect(response.status).toBe(400);
    const { error } = await response.json();
    expect(error.code).toBe("invalid_request");
    expect(error.problems).toHaveLength(6);
    expect(error.problems[1]).toEqual({
      path: "connections[0].accounts[0].transactions[1].amount",
      record_id: "bad-amount",
      message: 'must be a signed decimal string such as "-12.30"',
    });
    expect(await tableContents(s.services)).toEqual(before);
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
    small.route("/import", createImportRoutes(s.services, { maxBytes: 100 }));
    const response = await small.request(`/import?account=${s.accountId}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
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
