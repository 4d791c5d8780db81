// Resolving a presented API key to its account (spec 5). Runs on every /v1 request: a prepared,
// indexed read of the key and its account sent after the request arrived (on SQLite reused while
// the change counter stands still; on PostgreSQL shared by the requests that arrived while the
// previous read was under way), so a revocation or an account change made by any process or
// instance (portal, CLI) applies to the very next request (spec 3). The read also returns the
// account's data generation, which remembered answers are keyed on (api/middleware/answer-store.ts).
import { eq, sql } from "drizzle-orm";
import { type AccessFacts, accessFactsOf } from "../accounts/entitlement.ts";
import type { Clock } from "../core/clock.ts";
import { constantTimeEqual } from "../crypto/tokens.ts";
import type { Db } from "../db/store.ts";
import { coalescedReads } from "./coalesced-reads.ts";
import { hashApiKey, isWellFormedApiKey } from "./format.ts";

/** last_used_at is refreshed at most this often per key, so reads do not each cost a write. */
export const lastUsedResolutionMs = 60_000;

export type KeyCheck =
  | {
      ok: true;
      keyId: string;
      serviceAccountId: string;
      access: AccessFacts;
      /** The account's data generation when the key was checked (keys the answer cache). */
      dataGeneration: number;
    }
  | { ok: false; reason: "malformed" | "unknown" }
  | { ok: false; reason: "revoked"; revokedAt: Date };

export interface KeyAuthenticator {
  /**
   * `now`: the request's time, when the caller already has it. Answers synchronously when the
   * key's row is remembered (SQLite, no commit since it was read), so the cached-answer lane
   * serves such a request without a promise turn; otherwise the promise of the read.
   */
  check(presentedKey: string, now?: Date): KeyCheck | Promise<KeyCheck>;
}

/** Keys whose next last_used_at write is remembered at most (a few bytes each). */
const touchMemoryEntries = 10_000;

/** Key rows remembered at most (SQLite, between commits). */
const rememberedKeyEntries = 10_000;

export function createKeyAuthenticator(
  db: Db,
  clock: Clock,
  options: {
    onTouchError?: (error: unknown) => void;
    /**
     * The database's change counter (Database.changeCounter): when given, a key's row is read
     * once and reused until anything is committed anywhere, so a revocation or an account change
     * is still seen on the very next request. Without it every check reads the row.
     */
    changeCounter?: () => number;
  } = {},
): KeyAuthenticator {
  const { apiKeys, serviceAccounts } = db.t;
  const keyRows = db
    .select({
      keyId: apiKeys.id,
      keyHash: apiKeys.keyHash,
      lastUsedAt: apiKeys.lastUsedAt,
      revokedAt: apiKeys.revokedAt,
      serviceAccountId: apiKeys.serviceAccountId,
      status: serviceAccounts.status,
      subscriptionStatus: serviceAccounts.subscriptionStatus,
      paymentFailed: serviceAccounts.paymentFailed,
      disabled: serviceAccounts.disabled,
      demo: serviceAccounts.demo,
      connectEnabled: serviceAccounts.connectEnabled,
      dataGeneration: serviceAccounts.dataGeneration,
    })
    .from(apiKeys)
    .innerJoin(serviceAccounts, eq(serviceAccounts.id, apiKeys.serviceAccountId));
  const lookup = keyRows
    .where(eq(apiKeys.keyHash, sql.placeholder("hash")))
    .prepare("svc_key_lookup");
  type KeyRow = Awaited<ReturnType<typeof lookup.execute>>[number];
  /**
   * One key's row, read by a query sent after the call. On PostgreSQL the reads of concurrent
   * requests share one round trip (coalesced-reads.ts: still sent after each of them arrived);
   * SQLite reads in process.
   */
  const readRow = db.engine === "postgres" ? coalescedKeyReads() : readOneRow;
  function readOneRow(hash: string): Promise<KeyRow | undefined> {
    return lookup.execute({ hash }).then((rows) => rows[0]);
  }
  function coalescedKeyReads(): (hash: string) => Promise<KeyRow | undefined> {
    const many = keyRows
      .where(sql`${apiKeys.keyHash} = ANY(${sql.placeholder("hashes")}::text[])`)
      .prepare("svc_key_lookup_many");
    return coalescedReads(async (hashes: string[]) => {
      const rows = await many.execute({ hashes });
      return new Map(rows.map((row) => [row.keyHash, row]));
    });
  }
  /**
   * Known keys' decided checks by key hash, valid while the change counter reads `rememberedAt`:
   * a hit costs the counter read and a map lookup, no query and no allocation.
   */
  const remembered = new Map<string, KeyCheck>();
  let rememberedAt = Number.NaN;
  /** A known key's remembered check, if the change counter has not moved since it was read. */
  const rememberedCheck = (hash: string): KeyCheck | undefined => {
    if (!options.changeCounter) return undefined;
    const version = options.changeCounter();
    if (version !== rememberedAt) {
      remembered.clear();
      rememberedAt = version;
      return undefined;
    }
    return remembered.get(hash);
  };
  // When each key's last_used_at is next due to be written, so concurrent requests with one key
  // queue one write, not one each.
  const touchDueAt = new Map<string, number>();
  const touch = (keyId: string, now: number) => {
    if (touchDueAt.size >= touchMemoryEntries) touchDueAt.clear();
    touchDueAt.set(keyId, now + lastUsedResolutionMs);
    // Off the request's path: the answer does not wait for this write. Guarded, so concurrent
    // processes never move the time backwards.
    db.write(
      (tx) =>
        tx
          .update(apiKeys)
          .set({ lastUsedAt: new Date(now) })
          .where(
            sql`${apiKeys.id} = ${keyId} AND (${apiKeys.lastUsedAt} IS NULL OR ${apiKeys.lastUsedAt} < ${now - lastUsedResolutionMs})`,
          ),
      { isolation: "read committed" },
    ).catch((error: unknown) => options.onTouchError?.(error));
  };
  const touchIfDue = (check: KeyCheck, at: Date | undefined): KeyCheck => {
    if (!check.ok) return check;
    const now = (at ?? clock.now()).getTime();
    // A key missing here (memory full and cleared) is touched again: the write is guarded.
    if (now > (touchDueAt.get(check.keyId) ?? Number.NEGATIVE_INFINITY)) touch(check.keyId, now);
    return check;
  };
  const decide = (row: KeyRow | undefined, hash: string): KeyCheck => {
    // The index finds the row; the constant-time compare keeps the final check timing-flat.
    if (!row || !constantTimeEqual(row.keyHash, hash)) return { ok: false, reason: "unknown" };
    if (row.revokedAt !== null) return { ok: false, reason: "revoked", revokedAt: row.revokedAt };
    if (!touchDueAt.has(row.keyId) && touchDueAt.size < touchMemoryEntries) {
      touchDueAt.set(
        row.keyId,
        (row.lastUsedAt?.getTime() ?? Number.NEGATIVE_INFINITY) + lastUsedResolutionMs,
      );
    }
    return {
      ok: true,
      keyId: row.keyId,
      serviceAccountId: row.serviceAccountId,
      dataGeneration: row.dataGeneration,
      access: accessFactsOf(row),
    };
  };
  const readCheck = async (hash: string): Promise<KeyCheck> => {
    // The counter is read before the row: a commit in between moves it, so the next check reads.
    const version = options.changeCounter?.();
    const row = await readRow(hash);
    const check = decide(row, hash);
    // Unknown keys are never remembered: guessing must not fill the memory.
    if (row && version === rememberedAt && remembered.size < rememberedKeyEntries) {
      remembered.set(hash, check);
    }
    return check;
  };
  return {
    check(presentedKey, at) {
      if (!isWellFormedApiKey(presentedKey)) return { ok: false, reason: "malformed" };
      const hash = hashApiKey(presentedKey);
      const known = rememberedCheck(hash);
      if (known) return touchIfDue(known, at);
      return readCheck(hash).then((check) => touchIfDue(check, at));
    },
  };
}
