// Every authentication, entitlement and rate-limit error through real HTTP (spec 5, 7).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { updateServiceAccount } from "../../src/accounts/service-accounts.ts";
import { createApiKey, listApiKeys } from "../../src/keys/api-keys.ts";
import { type ApiHarness, errorOf, startApiHarness, type Tenant } from "../support/api.ts";
import { runSvc } from "../support/cli.ts";

let api: ApiHarness;
let tenant: Tenant;

beforeAll(async () => {
  api = await startApiHarness();
  tenant = await api.addTenant("owner@example.com");
});
afterAll(() => api.stop());

async function setFlags(flags: Parameters<typeof updateServiceAccount>[3]) {
  await updateServiceAccount(api.services.db, api.clock, tenant.accountId, flags);
}

const healthy = {
  status: "sandbox",
  subscriptionStatus: "none",
  paymentFailed: false,
  disabled: false,
  demo: false,
  connectEnabled: true,
} as const;

describe("authentication errors (spec 7)", () => {
  test("no Authorization header: 401 not_authenticated with WWW-Authenticate: Bearer", async () => {
    const response = await api.get("/v1/accounts", null);
    expect(response.status).toBe(401);
    expect(response.headers.get("WWW-Authenticate")).toStartWith("Bearer");
    expect((await errorOf(response)).code).toBe("not_authenticated");
  });

  for (const [label, header] of [
    ["another scheme", `Basic ${btoa("svk:x")}`],
    ["the key without a scheme", "KEY"],
    ["Bearer with no key", "Bearer "],
    ["an empty header", ""],
    ["two tokens", "Bearer KEY extra"],
  ] as const) {
    test(`a header that is not "Bearer <key>" (${label}): 401 invalid_api_key`, async () => {
      const response = await api.get("/v1/accounts", null, {
        Authorization: header.replace("KEY", tenant.key),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get("WWW-Authenticate")).toStartWith("Bearer");
      expect((await errorOf(response)).code).toBe("invalid_api_key");
    });
  }

  test("the scheme is case-insensitive (RFC 7235)", async () => {
    const response = await api.get("/v1/accounts", null, { Authorization: `bearer ${tenant.key}` });
    expect(response.status).toBe(200);
  });

  for (const [label, key] of [
    ["too short", "svk_abc"],
    ["a trailing character", "KEYx"],
    ["a character outside the alphabet", `${"svk_abcdefgh_".padEnd(55, "a")}!`],
  ] as const) {
    test(`a malformed key (${label}): 401 invalid_api_key naming the key's shape`, async () => {
      const response = await api.get("/v1/accounts", key.replace("KEY", tenant.key));
      expect(response.status).toBe(401);
      const error = await errorOf(response);
      expect(error.code).toBe("invalid_api_key");
      expect(error.message).toContain("malformed");
    });
  }

  test("a well-formed but unknown key: 401 invalid_api_key", async () => {
    const response = await api.get("/v1/accounts", `svk_${"A".repeat(8)}_${"B".repeat(43)}`);
    expect(response.status).toBe(401);
    const error = await errorOf(response);
    expect(error.code).toBe("invalid_api_key");
    expect(error.message).toContain("not known");
  });

  test("a key revoked from another process (the CLI) is refused on the very next request", async () => {
    const extra = await api.addTenant("revoked@example.com");
    expect((await api.get("/v1/accounts", extra.key)).status).toBe(200);
    const cli = await runSvc(
      ["--data-dir", api.services.config.dataDir, "keys", "revoke", extra.keyId],
      {
        cwd: api.services.config.dataDir,
        env: { SVC_MASTER_KEY: "0f".repeat(32) },
      },
    );
    expect(cli.code).toBe(0);
    const response = await api.get("/v1/accounts", extra.key);
    expect(response.status).toBe(401);
    const error = await errorOf(response);
    expect(error.code).toBe("invalid_api_key");
    expect(error.message).toContain("revoked");
  });
});

describe("account state errors, in the order the API guide documents", () => {
  test("owning account disabled: 401 user_inactive", async () => {
    await setFlags({ ...healthy, disabled: true, demo: true });
    try {
      const response = await api.get("/v1/accounts", tenant.key);
      expect(response.status).toBe(401);
      expect(response.headers.get("WWW-Authenticate")).toStartWith("Bearer");
      expect((await errorOf(response)).code).toBe("user_inactive");
    } finally {
      await setFlags(healthy);
    }
  });

  test("demo account: 403 demo_account", async () => {
    await setFlags({ ...healthy, demo: true, connectEnabled: false });
    try {
      const response = await api.get("/v1/accounts", tenant.key);
      expect(response.status).toBe(403);
      expect((await errorOf(response)).code).toBe("demo_account");
    } finally {
      await setFlags(healthy);
    }
  });

  test("connect feature off: 403 connect_not_available", async () => {
    await setFlags({ ...healthy, connectEnabled: false, status: "lapsed" });
    try {
      const response = await api.get("/v1/accounts", tenant.key);
      expect(response.status).toBe(403);
      expect((await errorOf(response)).code).toBe("connect_not_available");
    } finally {
      await setFlags(healthy);
    }
  });

  test("lapsed subscription: 403 subscription_lapsed; the key is not revoked and works once paid", async () => {
    await setFlags({ ...healthy, status: "lapsed", subscriptionStatus: "canceled" });
    try {
      const response = await api.get("/v1/accounts", tenant.key);
      expect(response.status).toBe(403);
      const error = await errorOf(response);
      expect(error.code).toBe("subscription_lapsed");
      expect(error.message).toContain("canceled");
      expect((await listApiKeys(api.services.db, tenant.accountId))[0]?.revokedAt).toBeNull();
      await setFlags({ subscriptionStatus: "active" });
      expect((await api.get("/v1/accounts", tenant.key)).status).toBe(200);
    } finally {
      await setFlags(healthy);
    }
  });

  test("failed renewal payment: 403 subscription_lapsed whose message names it and asks for payment details", async () => {
    await setFlags({
      ...healthy,
      status: "lapsed",
      subscriptionStatus: "past_due",
      paymentFailed: true,
    });
    try {
      const response = await api.get("/v1/accounts", tenant.key);
      expect(response.status).toBe(403);
      const error = await errorOf(response);
      expect(error.code).toBe("subscription_lapsed");
      expect(error.message).toContain("renewal payment");
      expect(error.message).toContain("payment details");
    } finally {
      await setFlags(healthy);
    }
  });

  test("trialing subscription on a lapsed account is served", async () => {
    await setFlags({ ...healthy, status: "lapsed", subscriptionStatus: "trialing" });
    try {
      expect((await api.get("/v1/accounts", tenant.key)).status).toBe(200);
    } finally {
      await setFlags(healthy);
    }
  });
});

describe("other errors", () => {
  test("a bad parameter: 400 invalid_request naming it", async () => {
    const response = await api.get("/v1/accounts?limit=many", tenant.key);
    expect(response.status).toBe(400);
    const error = await errorOf(response);
    expect(error.code).toBe("invalid_request");
    expect(error.message).toContain('"limit"');
  });

  test("an unknown path under /v1: 404 not_found in the envelope, with or without a key", async () => {
    for (const key of [tenant.key, null, "svk_bad"]) {
      const response = await api.get("/v1/payments", key);
      expect(response.status).toBe(404);
      expect((await errorOf(response)).code).toBe("not_found");
    }
    expect((await api.get("/v1", null)).status).toBe(404);
  });

  test("an unknown path inside a resource still needs a key first (the whole subtree is guarded)", async () => {
    const path = `/v1/accounts/${tenant.bank.accountIds[0]}/statements`;
    expect((await errorOf(await api.get(path, null))).code).toBe("not_authenticated");
    expect((await errorOf(await api.get(path, tenant.key))).code).toBe("not_found");
  });

  test("responses with bank data, and auth errors, are never cached (Cache-Control: no-store)", async () => {
    expect((await api.get("/v1/accounts", tenant.key)).headers.get("Cache-Control")).toBe(
      "no-store",
    );
    expect((await api.get("/v1/accounts", null)).headers.get("Cache-Control")).toBe("no-store");
  });

  test("a method the resource does not offer: 405 method_not_allowed in the envelope, with Allow", async () => {
    const response = await fetch(`${api.server.baseUrl}/v1/accounts`, {
      method: "POST",
      headers: { Authorization: `Bearer ${tenant.key}` },
    });
    expect(response.status).toBe(405);
    expect(response.headers.get("Allow")).toBe("GET, HEAD");
    expect((await errorOf(response)).code).toBe("method_not_allowed");
  });
});

describe("read-API rate limit per account", () => {
  test("beyond the limit: 429 rate_limited with Retry-After and RateLimit-* headers; the next window serves again", async () => {
    const limited = await startApiHarness({ config: { apiRateLimitPerMinute: 3 } });
    try {
      const a = await limited.addTenant("a@example.com");
      const b = await limited.addTenant("b@example.com");
      limited.clock.set("2026-01-15T09:00:10.000Z");
      const remaining: string[] = [];
      for (let i = 0; i < 3; i++) {
        const response = await limited.get("/v1/accounts", a.key);
        expect(response.status).toBe(200);
        expect(response.headers.get("RateLimit-Limit")).toBe("3");
        expect(response.headers.get("RateLimit-Policy")).toBe("3;w=60");
        remaining.push(response.headers.get("RateLimit-Remaining") ?? "");
      }
      expect(remaining).toEqual(["2", "1", "0"]);
      const refused = await limited.get("/v1/accounts", a.key);
      expect(refused.status).toBe(429);
      expect(refused.headers.get("Retry-After")).toBe("50");
      expect(refused.headers.get("RateLimit-Remaining")).toBe("0");
      expect(refused.headers.get("RateLimit-Reset")).toBe("50");
      expect((await errorOf(refused)).code).toBe("rate_limited");
      // Counted per account: another key of the same account is refused too (50 keys must not
      // make 50 limits); another account is unaffected.
      const second = await createApiKey(limited.services.db, limited.clock, {
        serviceAccountId: a.accountId,
        name: "second",
      });
      const refusedToo = await limited.get("/v1/accounts", second.key);
      expect(refusedToo.status).toBe(429);
      expect((await errorOf(refusedToo)).message).toContain("across all its API keys");
      expect((await limited.get("/v1/accounts", b.key)).status).toBe(200);
      limited.clock.advance(50_000);
      expect((await limited.get("/v1/accounts", a.key)).status).toBe(200);
    } finally {
      await limited.stop();
    }
  });

  test("apiRateLimitPerMinute 0 turns the limit off (no RateLimit headers)", async () => {
    const response = await api.get("/v1/accounts", tenant.key);
    expect(response.status).toBe(200);
    expect(response.headers.get("RateLimit-Limit")).toBeNull();
  });
});
