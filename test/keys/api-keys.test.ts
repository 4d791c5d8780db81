import { describe, expect, test } from "bun:test";
import { createServiceAccount } from "../../src/accounts/service-accounts.ts";
import { apiKeys } from "../../src/db/schema.ts";
import {
  createApiKey,
  listApiKeys,
  maxActiveKeysPerAccount,
  revokeApiKey,
} from "../../src/keys/api-keys.ts";
import { createKeyAuthenticator, lastUsedResolutionMs } from "../../src/keys/authenticate.ts";
import { hashApiKey } from "../../src/keys/format.ts";
import { createFakeClock } from "../support/fake-clock.ts";
import { createTestServices } from "../support/services.ts";

async function setup() {
  const clock = createFakeClock();
  const services = createTestServices({ clock });
  const created = await createServiceAccount(services.db, clock, {
    email: `owner-${crypto.randomUUID()}@example.com`,
    password: "correct horse battery staple",
  });
  return { services, clock, db: services.db, accountId: created.account.id };
}

describe("API key lifecycle (spec 2, 3)", () => {
  test("create returns the full key once; only its SHA-256 and the 12-character prefix are stored", async () => {
    const { db, clock, accountId } = await setup();
    const created = createApiKey(db, clock, { serviceAccountId: accountId, name: "production" });
    expect(created.key).toMatch(/^svk_[A-Za-z0-9_-]{8}_[A-Za-z0-9_-]{43}$/);
    expect(created.apiKey).toMatchObject({
      name: "production",
      prefix: created.key.slice(0, 12),
      status: "active",
      createdAt: clock.now().toISOString(),
      lastUsedAt: null,
      revokedAt: null,
    });
    const rows = db.select().from(apiKeys).all();
    expect(rows).toHaveLength(1);
    expect(rows[0]?.keyHash).toBe(hashApiKey(created.key));
    expect(JSON.stringify(rows)).not.toContain(created.key.slice(12));
    // The listing never carries the key again.
    expect(JSON.stringify(listApiKeys(db, accountId))).not.toContain(created.key.slice(12));
  });

  test("several keys of one account are active at once", async () => {
    const { db, clock, accountId, services } = await setup();
    const first = createApiKey(db, clock, { serviceAccountId: accountId, name: "staging" });
    const second = createApiKey(db, clock, { serviceAccountId: accountId, name: "production" });
    const auth = createKeyAuthenticator(services.database, clock);
    expect(auth.check(first.key).ok).toBe(true);
    expect(auth.check(second.key).ok).toBe(true);
  });

  test("a revoked key stays listed with its revocation date, and stops authenticating at once", async () => {
    const { db, clock, accountId, services } = await setup();
    const auth = createKeyAuthenticator(services.database, clock);
    const created = createApiKey(db, clock, { serviceAccountId: accountId });
    expect(auth.check(created.key).ok).toBe(true);
    clock.advance(5_000);
    const revoked = revokeApiKey(db, clock, created.apiKey.id);
    expect(revoked.alreadyRevoked).toBe(false);
    expect(revoked.apiKey.revokedAt).toBe(clock.now().toISOString());
    expect(auth.check(created.key)).toEqual({
      ok: false,
      reason: "revoked",
      revokedAt: clock.now(),
    });
    const listed = listApiKeys(db, accountId);
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ status: "revoked", revokedAt: clock.now().toISOString() });
  });

  test("revoking twice keeps the first revocation date", async () => {
    const { db, clock, accountId } = await setup();
    const created = createApiKey(db, clock, { serviceAccountId: accountId });
    const first = revokeApiKey(db, clock, created.apiKey.id);
    clock.advance(60_000);
    const second = revokeApiKey(db, clock, created.apiKey.id);
    expect(second.alreadyRevoked).toBe(true);
    expect(second.apiKey.revokedAt).toBe(first.apiKey.revokedAt);
  });

  test("a revoke scoped to another account does not find the key", async () => {
    const { db, clock, accountId } = await setup();
    const other = await createServiceAccount(db, clock, {
      email: "other@example.com",
      password: "correct horse battery staple",
    });
    const created = createApiKey(db, clock, { serviceAccountId: accountId });
    expect(() =>
      revokeApiKey(db, clock, created.apiKey.id, { serviceAccountId: other.account.id }),
    ).toThrow(`No API key ${created.apiKey.id}.`);
    expect(listApiKeys(db, accountId)[0]?.status).toBe("active");
  });

  test("bad input is answered with clear errors", async () => {
    const { db, clock, accountId } = await setup();
    const missing = "00000000-0000-4000-8000-000000000000";
    expect(() => createApiKey(db, clock, { serviceAccountId: missing })).toThrow(
      `No service account ${missing}.`,
    );
    expect(() => createApiKey(db, clock, { serviceAccountId: "nope" })).toThrow(
      "No service account nope.",
    );
    expect(() => listApiKeys(db, missing)).toThrow("No service account");
    expect(() => createApiKey(db, clock, { serviceAccountId: accountId, name: "  " })).toThrow(
      "name must not be empty.",
    );
    expect(() =>
      createApiKey(db, clock, { serviceAccountId: accountId, name: "a\u0007b" }),
    ).toThrow("control characters");
    expect(() => revokeApiKey(db, clock, "not-a-uuid")).toThrow("No API key not-a-uuid.");
  });

  test(`an account holds at most ${maxActiveKeysPerAccount} active keys; revoked ones do not count`, async () => {
    const { db, clock, accountId } = await setup();
    const ids = Array.from(
      { length: maxActiveKeysPerAccount },
      () => createApiKey(db, clock, { serviceAccountId: accountId }).apiKey.id,
    );
    expect(() => createApiKey(db, clock, { serviceAccountId: accountId })).toThrow(
      "active API keys",
    );
    revokeApiKey(db, clock, ids[0] as string);
    expect(createApiKey(db, clock, { serviceAccountId: accountId }).key).toStartWith("svk_");
  });

  test("the list is newest first", async () => {
    const { db, clock, accountId } = await setup();
    createApiKey(db, clock, { serviceAccountId: accountId, name: "old" });
    clock.advance(1_000);
    createApiKey(db, clock, { serviceAccountId: accountId, name: "new" });
    expect(listApiKeys(db, accountId).map((k) => k.name)).toEqual(["new", "old"]);
  });
});

describe("last used time (recorded without a write on every request)", () => {
  test("the first use is recorded; uses within a minute write nothing; a later use moves it", async () => {
    const { db, clock, accountId, services } = await setup();
    const auth = createKeyAuthenticator(services.database, clock);
    const created = createApiKey(db, clock, { serviceAccountId: accountId });
    const lastUsed = () => listApiKeys(db, accountId)[0]?.lastUsedAt;
    const changes = () =>
      (services.database.sqlite.query("SELECT total_changes() AS n").get() as { n: number }).n;

    auth.check(created.key);
    const firstUse = clock.now().toISOString();
    expect(lastUsed()).toBe(firstUse);

    const before = changes();
    for (let i = 0; i < 10; i++) {
      clock.advance(1_000);
      auth.check(created.key);
    }
    expect(changes()).toBe(before);
    expect(lastUsed()).toBe(firstUse);

    clock.advance(lastUsedResolutionMs);
    auth.check(created.key);
    expect(lastUsed()).toBe(clock.now().toISOString());
  });

  test("an unknown or malformed key is rejected without touching any row", async () => {
    const { clock, services } = await setup();
    const auth = createKeyAuthenticator(services.database, clock);
    expect(auth.check("svk_nope")).toEqual({ ok: false, reason: "malformed" });
    expect(auth.check(`svk_${"a".repeat(8)}_${"b".repeat(43)}`)).toEqual({
      ok: false,
      reason: "unknown",
    });
  });
});
