// The master key's check value: in a cluster every instance must use
// the same master key (signing secrets and sealed provider secrets are derived from it). The
// first start stores HMAC-SHA256(key, label) in instance_meta; every later start, of any
// instance or CLI command, compares its own key's value and refuses to run on a mismatch,
// before it could sign a delivery or seal a secret with the wrong key. The value reveals
// nothing about the key.
import { createHmac } from "node:crypto";
import { eq } from "drizzle-orm";
import type { Clock } from "../core/clock.ts";
import { type Db, first } from "../db/store.ts";
import { type MasterKey, MasterKeyError } from "./master-key.ts";
import { constantTimeEqual } from "./tokens.ts";

/** The instance_meta row that holds the check value (read by backup checks too). */
export const masterKeyCheckMetaKey = "master_key_check";
const checkKey = masterKeyCheckMetaKey;
const checkLabel = "svc master key check v1";

export function masterKeyCheckValue(masterKey: MasterKey): string {
  return createHmac("sha256", masterKey.bytes).update(checkLabel).digest("hex");
}

/** Stores the check value on first use; throws MasterKeyError when the key does not match it. */
export async function verifyMasterKey(db: Db, clock: Clock, masterKey: MasterKey): Promise<void> {
  const { instanceMeta } = db.t;
  const expected = masterKeyCheckValue(masterKey);
  const read = () =>
    first(
      db
        .select({ value: instanceMeta.value })
        .from(instanceMeta)
        .where(eq(instanceMeta.key, checkKey)),
    );
  let stored = await read();
  if (!stored) {
    await db.write((tx) =>
      tx
        .insert(tx.t.instanceMeta)
        .values({ key: checkKey, value: expected, updatedAt: clock.now() })
        .onConflictDoNothing({ target: tx.t.instanceMeta.key }),
    );
    stored = await read();
  }
  if (!stored || !constantTimeEqual(stored.value, expected)) {
    const where = masterKey.source === "env" ? "SVC_MASTER_KEY" : `the key file ${masterKey.path}`;
    throw new MasterKeyError(
      `${where} is not the master key this database's secrets were made with. Every instance and CLI run on one database needs the same key (SVC_MASTER_KEY or the same master.key); restore the original key instead of making a new one.`,
    );
  }
}
