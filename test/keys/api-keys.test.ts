import { describe, expect, test } from "bun:test";
import { createServiceAccount } from "../../src/accounts/service-accounts.ts";
import { tables } from "../support/tables.ts";

const { apiKeys } = tables;

import type { Db } from "../../src/db/store.ts";
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
  const services = await createTestServices({ clock });
  const created = await createServiceAccount(services.db, clock, {
    email: `owner-${crypto.randomUUID()}@example.com`,
    password: "correct horse battery staple",
  });
  return { services, clock, db: services.db, accountId: created.account.id };
}

describe("API key lifecycle (spec 2, 3)", () => {
  test("create returns the full key once; only its SHA-256 and the 12-character prefix are stored", async () => {
    const { db, clock, accountId } = await setup();
    const created = await createApiKey(db, clock, {
      serviceAccountId: accountId,
      name: "production",
    });
    expect(created.key).toMatch(/^svk_[A-Za-z0-9_-]{8}_[A-Za-z0-9_-]{43}$/);
    expect(created.apiKey).toMatchObject({
      name: "production",
      prefix: created.key.slice(0, 12),
      status: "active",
      createdAt: clock.now().toISOString(),
      lastUsedAt: null,
      revokedAt: null,
    });
    const rows = await db.select().from(apiKeys);
    expect(rows).toHaveLength(1);
    expect(rows[0]?.keyHash).toBe(hashApiKey(created.key));
    expect(JSON.stringify(rows)).not.toContain(created.key.slice(12));
    // The listing never carries the key again.
    expect(JSON.stringify(await listApiKeys(db, accountId))).not.toContain(created.key.slice(12));
  });

  test("several keys of one account are active at once", async () => {
    const { db, clock, accountId, services } = await setup();
    const first = await createApiKey(db, clock, { serviceAccountId: accountId, name: "staging" });
    const second = await createApiKey(db, clock, {
      serviceAccountId: accountId,
      name: "production",
    });
    const auth = createKeyAuthenticator(services.db, clock);
    expect((await auth.check(first.key)).ok).toBe(true);
    expect((await auth.check(second.key)).ok).toBe(true);
  });

  test("a revoked key stays listed with its revocation date, and stops authenticating at once", async () => {
    const { db, clock, accountId, services } = await setup();
    const auth = createKeyAuthenticator(services.db, clock);
    const created = await createApiKey(db, clock, { serviceAccountId: accountId });
    expect((await auth.check(created.key)).ok).toBe(true);
    clock.advance(5_000);
    const revoked = await revokeApiKey(db, clock, created.apiKey.id);
    expect(revoked.alreadyRevoked).toBe(false);
    expect(revoked.apiKey.revokedAt).toBe(clock.now().toISOString());
    expect(await auth.check(created.key)).toEqual({
      ok: false,
      reason: "revoked",
      revokedAt: clock.now(),
    });
    const listed = await listApiKeys(db, accountId);
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ status: "revoked", revokedAt: clock.now().toISOString() });
  });

  test("revoking twice keeps the first revocation date", async () => {
    const { db, clock, accountId } = await setup();
    const created = await createApiKey(db, clock, { serviceAccountId: accountId });
    const first = await revokeApiKey(db, clock, created.apiKey.id);
    clock.advance(60_000);
    const second = await revokeApiKey(db, clock, created.apiKey.id);
    expect(second.alreadyRevoked).toBe(true);
    expect(second.apiKey.revokedAt).toBe(first.apiKey.revokedAt);
  });

  test("a revoke scoped to another account does not find the key", async () => {
    const { db, clock, accountId } = await setup();
    const other = await createServiceAccount(db, clock, {
      email: "other@example.com",
      password: "correct horse battery staple",
    });
    const created = await createApiKey(db, clock, { serviceAccountId: accountId });
    await expect(
      revokeApiKey(db, clock, created.apiKey.id, { serviceAccountId: other.account.id }),
    ).rejects.toThrow(`No API key ${created.apiKey.id}.`);
    expect((await listApiKeys(db, accountId))[0]?.status).toBe("active");
  });

  test("bad input is answered with clear errors", async () => {
    const { db, clock, accountId } = await setup();
    const missing = "00000000-0000-4000-8000-000000000000";
    await expect(createApiKey(db, clock, { serviceAccountId: missing })).rejects.toThrow(
      `No service account ${missing}.`,
    );
    await expect(createApiKey(db, clock, { serviceAccountId: "nope" })).rejects.toThrow(
      "No service account nope.",
    );
    await expect(listApiKeys(db, missing)).rejects.toThrow("No service account");
    await expect(
      createApiKey(db, clock, { serviceAccountId: accountId, name: "  " }),
    ).rejects.toThrow("name must not be empty.");
    await expect(
      createApiKey(db, clock, { serviceAccountId: accountId, name: "a\u0007b" }),
    ).rejects.toThrow("control characters");
    await expect(revokeApiKey(db, clock, "not-a-uuid")).rejects.toThrow("No API key not-a-uuid.");
  });

  test(`an account holds at most ${maxActiveKeysPerAccount} active keys; revoked ones do not count`, async () => {
    const { db, clock, accountId } = await setup();
    const ids: string[] = [];
    for (let i = 0; i < maxActiveKeysPerAccount; i++) {
      ids.push((await createApiKey(db, clock, { serviceAccountId: accountId })).apiKey.id);
    }
    await expect(createApiKey(db, clock, { serviceAccountId: accountId })).rejects.toThrow(
      "active API keys",
    );
    await revokeApiKey(db, clock, ids[0] as string);
    expect((await createApiKey(db, clock, { serviceAccountId: accountId })).key).toStartWith(
      "svk_",
    );
  });

  test("the list is newest first", async () => {
    const { db, clock, accountId } = await setup();
    await createApiKey(db, clock, { serviceAccountId: accountId, name: "old" });
    clock.advance(1_000);
    await createApiKey(db, clock, { serviceAccountId: accountId, name: "new" });
    expect((await listApiKeys(db, accountId)).map((k) => k.name)).toEqual(["new", "old"]);
  });
});

describe("last used time (recorded without a write on every request)", () => {
  test("the first use is recorded; uses within a minute write nothing; a later use moves it", async () => {
    const { db, clock, accountId, services } = await setup();
    const created = await createApiKey(db, clock, { serviceAccountId: accountId });
    const lastUsed = async () => {
      // The write is off the request's path: let it land first.
      await Bun.sleep(20);
      return (await listApiKeys(db, accountId))[0]?.lastUsedAt;
    };
    // The authenticator's database, with its writes counted.
    let writes = 0;
    const counted: Db = Object.create(services.db, {
      write: {
        value: (...args: Parameters<Db["write"]>) => {
          writes++;
          return services.db.write(...args);
        },
      },
    });
    const auth = createKeyAuthenticator(counted, clock);

    await auth.check(created.key);
    const firstUse = clock.now().toISOString();
    expect(await lastUsed()).toBe(firstUse);
    expect(writes).toBe(1);

    for (let i = 0; i < 10; i++) {
      clock.advance(1_000);
      await auth.check(created.key);
    }
    expect(writes).toBe(1);
    expect(await lastUsed()).toBe(firstUse);

    clock.advance(lastUsedResolutionMs);
    await auth.check(created.key);
    expect(await lastUsed()).toBe(clock.now().toISOString());
    expect(writes).toBe(2);
  });

  test("an unknown or malformed key is rejected without touching any row", async () => {
    const { clock, services } = await setup();
    const auth = createKeyAuthenticator(services.db, clock);
    expect(await auth.check("svk_nope")).toEqual({ ok: false, reason: "malformed" });
    expect(await auth.check(`svk_${"a".repeat(8)}_${"b".repeat(43)}`)).toEqual({
      ok: false,
      reason: "unknown",
    });
  });
});
