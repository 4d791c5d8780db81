// Resolving a presented API key to its account (spec 5). Runs on every /v1 request, so it is one
// prepared, indexed read; it deliberately keeps no cache, so a revocation or an account change made
// by any process (portal, CLI) applies to the very next request (spec 3).
import type { AccessFacts } from "../accounts/entitlement.ts";
import type { Clock } from "../clock.ts";
import { constantTimeEqual } from "../crypto/tokens.ts";
import type { Database } from "../db/open.ts";
import type { AccountStatus, SubscriptionStatus } from "../db/schema.ts";
import { hashApiKey, isWellFormedApiKey } from "./format.ts";

/** last_used_at is refreshed at most this often per key, so reads do not each cost a write. */
export const lastUsedResolutionMs = 60_000;

export type KeyCheck =
  | { ok: true; keyId: string; serviceAccountId: string; access: AccessFacts }
  | { ok: false; reason: "malformed" | "unknown" }
  | { ok: false; reason: "revoked"; revokedAt: Date };

export interface KeyAuthenticator {
  check(presentedKey: string): KeyCheck;
}

interface KeyRow {
  id: string;
  service_account_id: string;
  key_hash: string;
  last_used_at: number | null;
  revoked_at: number | null;
  status: AccountStatus;
  subscription_status: SubscriptionStatus;
  payment_failed: number;
  disabled: number;
  demo: number;
  connect_enabled: number;
}

export function createKeyAuthenticator(database: Database, clock: Clock): KeyAuthenticator {
  const lookup = database.sqlite.query<KeyRow, [string]>(
    `SELECT k.id, k.service_account_id, k.key_hash, k.last_used_at, k.revoked_at,
            a.status, a.subscription_status, a.payment_failed, a.disabled, a.demo, a.connect_enabled
       FROM api_keys k JOIN service_accounts a ON a.id = k.service_account_id
      WHERE k.key_hash = ?`,
  );
  // Guarded so concurrent processes do not move the time backwards.
  const touch = database.sqlite.query<never, [number, string, number]>(
    `UPDATE api_keys SET last_used_at = ?1
      WHERE id = ?2 AND (last_used_at IS NULL OR last_used_at < ?3)`,
  );
  return {
    check(presentedKey) {
      if (!isWellFormedApiKey(presentedKey)) return { ok: false, reason: "malformed" };
      const hash = hashApiKey(presentedKey);
      const row = lookup.get(hash);
      // The index finds the row; the constant-time compare keeps the final check timing-flat.
      if (!row || !constantTimeEqual(row.key_hash, hash)) return { ok: false, reason: "unknown" };
      if (row.revoked_at !== null)
        return { ok: false, reason: "revoked", revokedAt: new Date(row.revoked_at) };
      const now = clock.now().getTime();
      const staleBefore = now - lastUsedResolutionMs;
      if (row.last_used_at === null || row.last_used_at < staleBefore) {
        touch.run(now, row.id, staleBefore);
      }
      return {
        ok: true,
        keyId: row.id,
        serviceAccountId: row.service_account_id,
        access: {
          status: row.status,
          subscriptionStatus: row.subscription_status,
          paymentFailed: row.payment_failed === 1,
          disabled: row.disabled === 1,
          demo: row.demo === 1,
          connectEnabled: row.connect_enabled === 1,
        },
      };
    },
  };
}
