// Endpoint management (spec 2, 3, 8).
import { beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { sha256Hex } from "../../src/crypto/tokens.ts";
import { tables } from "../support/tables.ts";

const { deliveries, webhookEndpoints } = tables;

import type { ApiError } from "../../src/core/errors.ts";
import { silentLogger } from "../../src/log/log.ts";
import { openServices } from "../../src/server/services.ts";
import { testEndpoint } from "../../src/webhooks/delivery/test-send.ts";
import { getEndpoint, listEndpoints } from "../../src/webhooks/endpoints/records.ts";
import {
  registerEndpoint,
  rotateEndpointSecret,
} from "../../src/webhooks/endpoints/registration.ts";
import {
  createSigningSecretCache,
  deriveSigningSecret,
} from "../../src/webhooks/endpoints/secrets.ts";
import {
  enableEndpoint,
  pauseEndpoint,
  removeEndpoint,
  resumeEndpoint,
} from "../../src/webhooks/endpoints/state.ts";
import { type Receiver, startReceiver } from "../support/receiver.ts";
import { testMasterKeyHex } from "../support/services.ts";
import { verifyWebhook } from "../support/webhook-verifier.ts";
import {
  apiErrorOf,
  raiseBalanceEvent,
  registerVerified,
  testCertificates,
  webhookSuite,
} from "../support/webhooks.ts";

const suite = webhookSuite();
const setup = suite.setup;
const apiError = apiErrorOf;
let receiver: Receiver;
beforeAll(() => {
  receiver = suite.receiver();
});
const accountEvent = raiseBalanceEvent;

describe("register (spec 2: signing secret shown once, only a hash stored)", () => {
  test("returns a whsec_ secret once; the database holds only its salt and SHA-256", async () => {
    const s = await setup();
    const { endpoint, signingSecret } = await registerEndpoint(s.ctx, {
      serviceAccountId: s.accountId,
      url: receiver.url("/a"),
      description: "  primary  ",
    });
    expect(signingSecret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(endpoint).toMatchObject({
      status: "active",
      verified: false,
      failureCount: 0,
      description: "primary",
      url: receiver.url("/a"),
    });
    expect(JSON.stringify(endpoint)).not.toContain(signingSecret);
    const row = (
      await s.services.db
        .select()
        .from(webhookEndpoints)
        .where(eq(webhookEndpoints.id, endpoint.id))
    )[0];
    expect(row?.secretHash).toBe(sha256Hex(signingSecret));
    expect(JSON.stringify(row)).not.toContain(signingSecret.slice(6));
    // docs/security.md: whsec_ + base64url(HMAC-SHA256(master key, endpoint id + salt)).
    expect(deriveSigningSecret(s.services.masterKey, endpoint.id, row?.secretSalt as string)).toBe(
      signingSecret,
    );
    expect(await getEndpoint(s.services.db, { endpointId: endpoint.id })).toEqual(endpoint);
  });

  test("a refused URL answers invalid_url (400) with the reason", async () => {
    const s = await setup({ config: { unsafeAllowPrivateTargets: false } });
    const error = await apiError(() =>
      registerEndpoint(s.ctx, { serviceAccountId: s.accountId, url: "https://127.0.0.1/" }),
    );
    expect(error.code).toBe("invalid_url");
    expect(error.message).toContain("loopback");
  });

  test("an unknown account answers not_found", async () => {
    const s = await setup();
    const error = await apiError(() =>
      registerEndpoint(s.ctx, {
        serviceAccountId: "00000000-0000-4000-8000-000000000000",
        url: receiver.url(),
      }),
    );
    expect(error.code).toBe("not_found");
  });

  test("at most 3 endpoints per account (spec 2): the fourth is refused with limit_exceeded", async () => {
    const s = await setup();
    for (const path of ["/1", "/2", "/3"]) {
      await registerEndpoint(s.ctx, { serviceAccountId: s.accountId, url: receiver.url(path) });
    }
    const error = await apiError(() =>
      registerEndpoint(s.ctx, { serviceAccountId: s.accountId, url: receiver.url("/4") }),
    );
    expect(error.code).toBe("limit_exceeded");
    expect(error.message).toContain("at most 3");
    expect(await listEndpoints(s.services.db, s.accountId)).toHaveLength(3);
  });

  test("10 registrations per hour per account (spec 8): the 11th answers 429 with Retry-After, and a restart does not reset it", async () => {
    const s = await setup();
    for (let i = 0; i < 10; i++) {
      const { endpoint } = await registerEndpoint(s.ctx, {
        serviceAccountId: s.accountId,
        url: receiver.url(`/r${i}`),
      });
      await removeEndpoint(s.services.db, { endpointId: endpoint.id });
    }
    const error = await apiError(() =>
      registerEndpoint(s.ctx, { serviceAccountId: s.accountId, url: receiver.url("/r10") }),
    );
    expect(error.status).toBe(429);
    expect(error.code).toBe("rate_limited");
    expect(error.message).toContain("at most 10 per hour");
    expect(Number(error.headers["Retry-After"])).toBeGreaterThan(0);

    // Reopen the same data directory: the count lives in the database.
    const reopened = await openServices(
      { ...s.services.config },
      { clock: s.clock, log: silentLogger, env: { SVC_MASTER_KEY: testMasterKeyHex } },
    );
    try {
      const again = await apiError(() =>
        registerEndpoint(
          { ...s.ctx, db: reopened.db },
          { serviceAccountId: s.accountId, url: receiver.url("/r11") },
        ),
      );
      expect(again.status).toBe(429);
    } finally {
      await reopened.database.close();
    }
    s.clock.advance(60 * 60_000);
    await registerEndpoint(s.ctx, { serviceAccountId: s.accountId, url: receiver.url("/next") });
  });

  test("registrations are counted over the last hour, not per clock hour (spec 8): 20 across an hour boundary, the second 10 refused until the oldest is an hour old", async () => {
    const s = await setup();
    s.clock.set("2026-01-15T09:59:55.000Z");
    const outcomes: number[] = [];
    for (let i = 0; i < 20; i++) {
      const result = await registerEndpoint(s.ctx, {
        serviceAccountId: s.accountId,
        url: receiver.url(`/h${i}`),
      }).catch((error: unknown) => error);
      if ("endpoint" in (result as object)) {
        await removeEndpoint(s.services.db, {
          endpointId: (result as { endpoint: { id: string } }).endpoint.id,
        });
        outcomes.push(201);
      } else outcomes.push((result as { status: number }).status);
      s.clock.advance(1_000);
    }
    expect(outcomes).toEqual([...Array(10).fill(201), ...Array(10).fill(429)]);
    s.clock.set("2026-01-15T10:59:55.000Z");
    await registerEndpoint(s.ctx, { serviceAccountId: s.accountId, url: receiver.url("/later") });
  });

  test("a refused registration is not a registration (spec 8): URLs refused for plain HTTP, a port, a private address or bad syntax leave all 10 registrations of the hour", async () => {
    const resolve = async (host: string) =>
      host === "internal.example.com" ? ["10.0.0.7"] : ["93.184.216.34"];
    const s = await setup({ config: { unsafeAllowPrivateTargets: false }, resolve });
    const refusedUrls = [
      "http://hooks.example.com/h",
      "https://hooks.example.com:8443/h",
      "https://internal.example.com/h",
      "https://[::1]/h",
      "not a url",
    ];
    for (const url of [...refusedUrls, ...refusedUrls]) {
      const error = await apiError(() =>
        registerEndpoint(s.ctx, { serviceAccountId: s.accountId, url }),
      );
      expect(error.code).toBe("invalid_url");
    }
    for (let i = 0; i < 10; i++) {
      const { endpoint } = await registerEndpoint(s.ctx, {
        serviceAccountId: s.accountId,
        url: `https://hooks.example.com/ok${i}`,
      });
      await removeEndpoint(s.services.db, { endpointId: endpoint.id });
    }
    const error = await apiError(() =>
      registerEndpoint(s.ctx, {
        serviceAccountId: s.accountId,
        url: "https://hooks.example.com/x",
      }),
    );
    expect(error.status).toBe(429);
    expect(error.message).toContain("at most 10 per hour");
  });

  test("refused URLs have their own budget of 30 per hour: the 31st attempt answers 429 without a DNS lookup, until the oldest refusal is an hour old", async () => {
    const looked: string[] = [];
    const resolve = async (host: string) => {
      looked.push(host);
      return ["10.0.0.7"];
    };
    const s = await setup({ config: { unsafeAllowPrivateTargets: false }, resolve });
    const attempt = (i: number) =>
      apiError(() =>
        registerEndpoint(s.ctx, {
          serviceAccountId: s.accountId,
          url: `https://n${i}.example.com/`,
        }),
      );
    for (let i = 0; i < 30; i++) {
      expect((await attempt(i)).code).toBe("invalid_url");
      s.clock.advance(1_000);
    }
    expect(looked).toHaveLength(30);
    const throttled = await attempt(30);
    expect(throttled.status).toBe(429);
    expect(throttled.message).toContain("at most 30 per hour");
    expect(Number(throttled.headers["Retry-After"])).toBe(3_600 - 30);
    expect(looked).toHaveLength(30);
    s.clock.advance((3_600 - 30) * 1_000);
    expect((await attempt(31)).code).toBe("invalid_url");
  });

  test("a malformed URL costs nothing from the hourly budget", async () => {
    const s = await setup();
    for (let i = 0; i < 12; i++) {
      await apiError(() =>
        registerEndpoint(s.ctx, { serviceAccountId: s.accountId, url: "http://x.example.com/" }),
      );
    }
    await registerEndpoint(s.ctx, { serviceAccountId: s.accountId, url: receiver.url() });
  });
});

describe("rotate secret (spec 3: the old secret stops verifying the instant the new one is issued)", () => {
  test("a new secret is returned once and test sends are signed with it, not the old one", async () => {
    const s = await setup();
    const { endpoint, signingSecret: oldSecret } = await registerEndpoint(s.ctx, {
      serviceAccountId: s.accountId,
      url: receiver.url("/rot"),
    });
    const rotated = await rotateEndpointSecret(s.ctx, { endpointId: endpoint.id });
    expect(rotated.signingSecret).toMatch(/^whsec_/);
    expect(rotated.signingSecret).not.toBe(oldSecret);
    const before = receiver.requests.length;
    await testEndpoint(s.ctx, { endpointId: endpoint.id });
    const got = receiver.requests[before];
    const verify = (secret: string) =>
      verifyWebhook({
        secret,
        headers: got?.headers ?? {},
        rawBody: got?.body ?? "",
        nowSeconds: Math.floor(s.clock.now().getTime() / 1000),
      }).ok;
    expect(verify(rotated.signingSecret)).toBe(true);
    expect(verify(oldSecret)).toBe(false);
  });

  test("the dispatcher's remembered secret follows the salt: after a rotation the next attempt signs with the new secret", async () => {
    const s = await setup();
    const { endpoint, signingSecret: oldSecret } = await registerEndpoint(s.ctx, {
      serviceAccountId: s.accountId,
      url: receiver.url("/rot-cache"),
    });
    const saltNow = async () =>
      (
        await s.services.db
          .select({ salt: webhookEndpoints.secretSalt })
          .from(webhookEndpoints)
          .where(eq(webhookEndpoints.id, endpoint.id))
      )[0]?.salt as string;
    const secretOf = createSigningSecretCache(s.services.masterKey);
    expect(secretOf(endpoint.id, await saltNow())).toBe(oldSecret);
    expect(secretOf(endpoint.id, await saltNow())).toBe(oldSecret);
    const rotated = await rotateEndpointSecret(s.ctx, { endpointId: endpoint.id });
    expect(secretOf(endpoint.id, await saltNow())).toBe(rotated.signingSecret);
  });
});

describe("test send (spec 3 'portal: Test')", () => {
  test("reaches an unverified endpoint once and reports status code and response time", async () => {
    const s = await setup();
    const { endpoint } = await registerEndpoint(s.ctx, {
      serviceAccountId: s.accountId,
      url: receiver.url("/t"),
    });
    const before = receiver.requests.length;
    const result = await testEndpoint(s.ctx, { endpointId: endpoint.id });
    expect(result).toMatchObject({ ok: true, statusCode: 200, type: "webhook.test" });
    expect(result.responseTimeMs).toBeGreaterThanOrEqual(0);
    const body = JSON.parse(receiver.requests[before]?.body ?? "{}");
    expect(body).toMatchObject({ type: "webhook.test", data: { endpoint_id: endpoint.id } });
  });

  test("test sends are counted over the last minute, not per clock minute (spec 8): 20 within seconds across a minute boundary, the second 10 refused with the time of the next allowed send", async () => {
    const s = await setup();
    const { endpoint } = await registerEndpoint(s.ctx, {
      serviceAccountId: s.accountId,
      url: receiver.url("/w"),
    });
    s.clock.set("2026-01-15T09:00:57.000Z");
    const outcomes: number[] = [];
    let lastError: ApiError | undefined;
    for (let i = 0; i < 20; i++) {
      try {
        await testEndpoint(s.ctx, { endpointId: endpoint.id });
        outcomes.push(200);
      } catch (error) {
        lastError = error as ApiError;
        outcomes.push(lastError.status);
      }
      s.clock.advance(250);
    }
    expect(outcomes).toEqual([...Array(10).fill(200), ...Array(10).fill(429)]);
    // Last refusal at 09:01:01.750; the first send (09:00:57.000) leaves the window at 09:01:57.
    expect(lastError?.message).toContain("at 2026-01-15T09:01:57.000Z");
    expect(lastError?.headers["Retry-After"]).toBe("56");
    s.clock.set("2026-01-15T09:01:57.000Z");
    expect((await testEndpoint(s.ctx, { endpointId: endpoint.id })).ok).toBe(true);
  });

  test("a failed test is reported, not retried, and not counted in the failure streak", async () => {
    const s = await setup();
    const failing = startReceiver(
      (await testCertificates()).cert,
      () => new Response(null, { status: 503 }),
    );
    try {
      const { endpoint } = await registerEndpoint(s.ctx, {
        serviceAccountId: s.accountId,
        url: failing.url(),
      });
      const result = await testEndpoint(s.ctx, { endpointId: endpoint.id });
      expect(result).toMatchObject({ ok: false, statusCode: 503, errorClass: "http_status" });
      expect((await getEndpoint(s.services.db, { endpointId: endpoint.id })).failureCount).toBe(0);
      const rows = await s.services.db.select().from(deliveries);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ kind: "test", status: "failed", nextAttemptAt: null });
    } finally {
      await failing.stop();
    }
  });

  test("another account's endpoint is not found (portal scope)", async () => {
    const s = await setup();
    const { endpoint } = await registerEndpoint(s.ctx, {
      serviceAccountId: s.accountId,
      url: receiver.url(),
    });
    const error = await apiError(() =>
      testEndpoint(s.ctx, {
        endpointId: endpoint.id,
        serviceAccountId: "00000000-0000-4000-8000-000000000000",
      }),
    );
    expect(error.code).toBe("not_found");
  });
});

describe("endpoint states (spec 3)", () => {
  test("pause cancels pending deliveries; events raised while paused are never delivered after resume", async () => {
    const s = await setup();
    const { endpoint } = await registerVerified(s, receiver, "/p");
    const ref = { endpointId: endpoint.id };
    const pending = await accountEvent(s);
    expect(pending.deliveryIds).toHaveLength(1);
    expect((await pauseEndpoint(s.services.db, s.clock, ref)).status).toBe("paused");
    expect(
      (
        await s.services.db
          .select()
          .from(deliveries)
          .where(eq(deliveries.id, pending.deliveryIds[0] as string))
      )[0]?.status,
    ).toBe("cancelled");
    expect((await accountEvent(s)).deliveryIds).toHaveLength(0);
    expect((await resumeEndpoint(s.services.db, s.clock, ref)).status).toBe("active");
    expect((await accountEvent(s)).deliveryIds).toHaveLength(1);
  });

  test("enable only applies to a disabled endpoint and clears reason, date and failure count", async () => {
    const s = await setup();
    const { endpoint } = await registerVerified(s, receiver, "/e");
    const ref = { endpointId: endpoint.id };
    const error = await apiError(() => enableEndpoint(s.services.db, s.clock, ref));
    expect(error.code).toBe("invalid_state");
    await s.services.db.write((tx) =>
      tx
        .update(webhookEndpoints)
        .set({
          status: "disabled",
          failureCount: 20,
          disabledReason: "20 consecutive failed deliveries",
          disabledAt: s.clock.now(),
        })
        .where(eq(webhookEndpoints.id, endpoint.id)),
    );
    expect(await enableEndpoint(s.services.db, s.clock, ref)).toMatchObject({
      status: "active",
      failureCount: 0,
      disabledReason: null,
      disabledAt: null,
    });
  });

  test("pause and resume refuse the wrong starting state", async () => {
    const s = await setup();
    const { endpoint } = await registerEndpoint(s.ctx, {
      serviceAccountId: s.accountId,
      url: receiver.url(),
    });
    const ref = { endpointId: endpoint.id };
    expect((await apiError(() => resumeEndpoint(s.services.db, s.clock, ref))).code).toBe(
      "invalid_state",
    );
    await pauseEndpoint(s.services.db, s.clock, ref);
    expect((await apiError(() => pauseEndpoint(s.services.db, s.clock, ref))).message).toContain(
      "is paused",
    );
  });

  test("remove deletes the endpoint; it is then not found", async () => {
    const s = await setup();
    const { endpoint } = await registerEndpoint(s.ctx, {
      serviceAccountId: s.accountId,
      url: receiver.url(),
    });
    expect(await removeEndpoint(s.services.db, { endpointId: endpoint.id })).toEqual({
      id: endpoint.id,
      removed: true,
    });
    expect(await listEndpoints(s.services.db, s.accountId)).toEqual([]);
    expect(
      (await apiError(() => getEndpoint(s.services.db, { endpointId: endpoint.id }))).code,
    ).toBe("not_found");
  });
});
