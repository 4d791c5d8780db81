// Every instance on one database needs the same master key: the first start stores
// the key's check value; a process with another key refuses to start, with a clear message.
import { afterAll, describe, expect, test } from "bun:test";
import { MasterKeyError } from "../../src/crypto/master-key.ts";
import { masterKeyCheckValue } from "../../src/crypto/master-key-check.ts";
import { silentLogger } from "../../src/log/log.ts";
import { openServices } from "../../src/server/services.ts";
import { createTestServices, testMasterKeyHex } from "../support/services.ts";

const services = await createTestServices();
afterAll(() => services.database.close());

describe("the master key's check value", () => {
  test("a second process with the same key opens the database and finds its own key's check value stored", async () => {
    const again = await openServices(services.config, {
      log: silentLogger,
      env: { SVC_MASTER_KEY: testMasterKeyHex },
    });
    const stored = await again.db.select().from(again.db.t.instanceMeta);
    await again.database.close();
    expect(stored.map((row) => row.value)).toContain(masterKeyCheckValue(again.masterKey));
  });

  test("a process with another key refuses to start, naming where its key came from", async () => {
    const other = openServices(services.config, {
      log: silentLogger,
      env: { SVC_MASTER_KEY: "1e".repeat(32) },
    });
    await expect(other).rejects.toThrow(MasterKeyError);
    await expect(other).rejects.toThrow(/SVC_MASTER_KEY is not the master key/);
  });

  test("the stored value is an HMAC of the key, not the key", async () => {
    const [row] = await services.db.select().from(services.db.t.instanceMeta);
    expect(row?.value).toBe(masterKeyCheckValue(services.masterKey));
    expect(row?.value).not.toContain(testMasterKeyHex);
  });
});
