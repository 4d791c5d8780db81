// Every /v1 route, single-resource routes included (`/v1/accounts/{id}?include_pendng=true`),
// refuses unknown query parameters with the same 400 naming the parameter, so a typo never
// silently changes nothing.
import { afterAll, describe, expect, test } from "bun:test";
import { errorOf, startApiHarness } from "../support/api.ts";

const api = await startApiHarness();
afterAll(() => api.stop());
const tenant = await api.addTenant("unknown-query@example.com");
const accountId = tenant.bank.accountIds[0] as string;
const connectionId = tenant.bank.connectionId;

const routes = [
  "/v1/accounts",
  `/v1/accounts/${accountId}`,
  `/v1/accounts/${accountId}/balance`,
  `/v1/accounts/${accountId}/transactions`,
  "/v1/connections",
  `/v1/connections/${connectionId}`,
];

// The audit's query strings and the parameter each answer must name.
const queries: [string, string][] = [
  ["foo=1", "foo"],
  ["include_pendng=true", "include_pendng"],
  ["LIMIT=1", "LIMIT"],
  ["x", "x"],
  ["=1", ""],
];

describe("every /v1 route refuses an unknown query parameter with 400 naming it", () => {
  for (const route of routes) {
    test.each(queries)(
      `${route.replace(/[0-9a-f-]{36}/g, "{id}")}?%s is 400`,
      async (query, name) => {
        const response = await api.get(`${route}?${query}`, tenant.key);
        expect(response.status).toBe(400);
        expect(await errorOf(response)).toEqual({
          code: "invalid_request",
          message: `Unknown query parameter "${name}".`,
        });
      },
    );
  }

  test("the same routes without a query still answer 200 (the refusal is about the parameter)", async () => {
    for (const route of routes) {
      expect((await api.get(route, tenant.key)).status).toBe(200);
    }
  });

  test("a remembered answer does not let an unknown parameter through: asked twice, refused twice", async () => {
    const route = `/v1/accounts/${accountId}`;
    expect((await api.get(route, tenant.key)).status).toBe(200);
    expect((await api.get(route, tenant.key)).status).toBe(200);
    for (let i = 0; i < 2; i++) {
      expect((await api.get(`${route}?include_pending=true`, tenant.key)).status).toBe(400);
    }
  });
});
