// HTTP correctness on /v1 and the portal API:
// - a wrong method on a known path is 405 method_not_allowed with `Allow` (RFC 9110 15.5.6), an
//   unknown path still 404 (src/http/allowed-methods.ts);
// - UUIDs are case-insensitive on input (RFC 9562 section 4): an id in upper case reads the same
//   resource as in lower case, and answers carry the lower-case form (src/http/canonical-ids.ts).
import { afterAll, describe, expect, test } from "bun:test";
import { recordAccountEvents } from "../../src/webhooks/events/write.ts";
import { errorOf, startApiHarness } from "../support/api.ts";
import { signedInOwner } from "../support/portal.ts";

const api = await startApiHarness();
afterAll(() => api.stop());
const tenant = await api.addTenant("methods@example.com");
const owner = await signedInOwner(api.services, api.server.baseUrl);

function call(method: string, path: string, key: string | null = tenant.key) {
  return fetch(`${api.server.baseUrl}${path}`, {
    method,
    headers: key ? { Authorization: `Bearer ${key}` } : {},
  });
}

async function expectNotAllowed(method: string, path: string, allow: string, response: Response) {
  const status = response.status;
  expect({ method, path, status, allow: response.headers.get("Allow") }).toEqual({
    method,
    path,
    status: 405,
    allow,
  });
  expect((await errorOf(response)).code).toBe("method_not_allowed");
}

describe("405 with Allow on a known path asked with another method", () => {
  test("/v1 resources and the reference", async () => {
    const accountId = tenant.bank.accountIds[0] as string;
    for (const [method, path, allow] of [
      ["DELETE", "/v1/accounts", "GET, HEAD"],
      ["POST", `/v1/accounts/${accountId}`, "GET, HEAD"],
      ["PUT", `/v1/accounts/${accountId}/transactions`, "GET, HEAD"],
      ["POST", "/v1/events/stream", "GET, HEAD"],
      ["PATCH", "/v1/connections", "GET, HEAD"],
      ["POST", "/v1/openapi.json", "GET, HEAD"],
    ] as const) {
      await expectNotAllowed(method, path, allow, await call(method, path));
    }
  });

  test("the portal API names every method the path has", async () => {
    for (const [method, path, allow] of [
      ["PUT", "/keys", "GET, POST, HEAD"],
      ["PUT", "/session", "POST, GET, DELETE, HEAD"],
      ["POST", `/endpoints/${crypto.randomUUID()}`, "GET, PATCH, DELETE, HEAD"],
    ] as const) {
      await expectNotAllowed(method, path, allow, await owner.client.request(method, path));
    }
  });

  test("an unknown path is still 404, and authentication still comes first", async () => {
    expect((await call("GET", "/v1/no-such-thing")).status).toBe(404);
    expect((await owner.client.request("GET", "/no-such-thing")).status).toBe(404);
    expect((await call("DELETE", "/v1/accounts", null)).status).toBe(401);
  });
});

describe("UUIDs are case-insensitive on input and answered in lower case", () => {
  test("an account, its transactions and its connection read the same in upper case", async () => {
    const accountId = tenant.bank.accountIds[0] as string;
    const upper = accountId.toUpperCase();
    expect(upper).not.toBe(accountId);
    const lower = await call("GET", `/v1/accounts/${accountId}`);
    const shouted = await call("GET", `/v1/accounts/${upper}`);
    expect(shouted.status).toBe(200);
    const body = (await shouted.json()) as { account_id: string };
    expect(body).toEqual(await lower.json());
    expect(body.account_id).toBe(accountId);
    expect((await call("GET", `/v1/accounts/${upper}/transactions`)).status).toBe(200);
    expect((await call("GET", `/v1/accounts/${upper}/balance`)).status).toBe(200);
    const connection = await call(
      "GET",
      `/v1/connections/${tenant.bank.connectionId.toUpperCase()}`,
    );
    expect(connection.status).toBe(200);
    expect(((await connection.json()) as { connection_id: string }).connection_id).toBe(
      tenant.bank.connectionId,
    );
  });

  test("an event id in upper case, in the path and as last_event_id", async () => {
    const [event] = await api.services.db.write((tx) =>
      recordAccountEvents(tx, api.clock, [
        {
          serviceAccountId: tenant.accountId,
          type: "account.balance.updated",
          data: {
            account_id: tenant.bank.accountIds[0] as string,
            fetched_at: api.clock.now().toISOString(),
          },
        },
      ]),
    );
    const id = event?.eventId as string;
    const read = await call("GET", `/v1/events/${id.toUpperCase()}`);
    expect(read.status).toBe(200);
    expect(((await read.json()) as { id: string }).id).toBe(id);
    const stop = new AbortController();
    const stream = await fetch(
      `${api.server.baseUrl}/v1/events/stream?last_event_id=${id.toUpperCase()}`,
      { headers: { Authorization: `Bearer ${tenant.key}` }, signal: stop.signal },
    );
    expect(stream.status).toBe(200);
    stop.abort();
    const viaHeader = new AbortController();
    const header = await fetch(`${api.server.baseUrl}/v1/events/stream`, {
      headers: { Authorization: `Bearer ${tenant.key}`, "Last-Event-ID": id.toUpperCase() },
      signal: viaHeader.signal,
    });
    expect(header.status).toBe(200);
    viaHeader.abort();
  });

  test("a portal id in upper case names the same key", async () => {
    const created = await owner.client.json<{ apiKey: { id: string } }>("POST", "/keys", {});
    const revoked = await owner.client.json<{ apiKey: { id: string } }>(
      "POST",
      `/keys/${created.body.apiKey.id.toUpperCase()}/revoke`,
    );
    expect(revoked.status).toBe(200);
    expect(revoked.body.apiKey.id).toBe(created.body.apiKey.id);
  });
});
