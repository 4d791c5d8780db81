// API key lifecycle (spec 2 "API key", spec 3 key states): create (full key shown once),
// list (revoked keys stay listed with their date), revoke (effective on the next request).
// The portal and the CLI both call these.
import { and, count, desc, eq, isNull } from "drizzle-orm";
import { z } from "zod";
import type { Clock } from "../clock.ts";
import type { DbOrTx } from "../db/open.ts";
import { apiKeys, serviceAccounts } from "../db/schema.ts";
import { ApiError } from "../http/errors.ts";
import { isUuid, newId } from "../ids.ts";
import { displayPrefix, generateApiKey, hashApiKey } from "./format.ts";

/** The spec leaves the number open ("generous"); this bounds what a leaked portal session can mint. */
export const maxActiveKeysPerAccount = 50;
export const defaultKeyName = "API key";

export const keyNameSchema = z
  .string()
  .trim()
  .min(1, "must not be empty")
  .max(100, "must be at most 100 characters")
  // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters is the point
  .refine((name) => !/[\u0000-\u001f\u007f]/.test(name), "must not contain control characters");

export interface ApiKeyView {
  id: string;
  serviceAccountId: string;
  name: string;
  /** Display prefix: the first 12 characters of the key. */
  prefix: string;
  status: "active" | "revoked";
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface CreatedApiKey {
  apiKey: ApiKeyView;
  /** The full key. Returned only here, once; only its SHA-256 is stored. */
  key: string;
}

type ApiKeyRow = typeof apiKeys.$inferSelect;

function toView(row: ApiKeyRow): ApiKeyView {
  return {
    id: row.id,
    serviceAccountId: row.serviceAccountId,
    name: row.name,
    prefix: row.prefix,
    status: row.revokedAt ? "revoked" : "active",
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
  };
}

function requireAccount(db: DbOrTx, serviceAccountId: string): void {
  const found =
    isUuid(serviceAccountId) &&
    db
      .select({ id: serviceAccounts.id })
      .from(serviceAccounts)
      .where(eq(serviceAccounts.id, serviceAccountId))
      .get();
  if (!found) throw new ApiError("not_found", `No service account ${serviceAccountId}.`);
}

/** Creates a key for the account and returns the full key once. */
export function createApiKey(
  db: DbOrTx,
  clock: Clock,
  input: { serviceAccountId: string; name?: string },
): CreatedApiKey {
  const name = keyNameSchema.safeParse(input.name ?? defaultKeyName);
  if (!name.success)
    throw new ApiError("invalid_request", `name ${name.error.issues[0]?.message}.`);
  const key = generateApiKey();
  const row: ApiKeyRow = {
    id: newId(),
    serviceAccountId: input.serviceAccountId,
    name: name.data,
    prefix: displayPrefix(key),
    keyHash: hashApiKey(key),
    createdAt: clock.now(),
    lastUsedAt: null,
    revokedAt: null,
  };
  db.transaction((tx) => {
    requireAccount(tx, input.serviceAccountId);
    const active = tx
      .select({ n: count() })
      .from(apiKeys)
      .where(and(eq(apiKeys.serviceAccountId, input.serviceAccountId), isNull(apiKeys.revokedAt)))
      .get();
    if ((active?.n ?? 0) >= maxActiveKeysPerAccount) {
      throw new ApiError(
        "limit_exceeded",
        `This account already has ${maxActiveKeysPerAccount} active API keys, the most allowed. Revoke one it no longer uses first.`,
      );
    }
    tx.insert(apiKeys).values(row).run();
  });
  return { apiKey: toView(row), key };
}

/** Every key of the account, newest first, revoked ones included with their revocation date. */
export function listApiKeys(db: DbOrTx, serviceAccountId: string): ApiKeyView[] {
  requireAccount(db, serviceAccountId);
  return db
    .select()
    .from(apiKeys)
    .where(eq(apiKeys.serviceAccountId, serviceAccountId))
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id))
    .all()
    .map(toView);
}

export interface RevokedApiKey {
  apiKey: ApiKeyView;
  /** True when the key had been revoked before; its original revocation date is kept. */
  alreadyRevoked: boolean;
}

/**
 * Revokes a key. The next request with it gets 401 invalid_api_key: authentication reads the
 * key row whenever the database has changed, so no cache in any process can keep a revoked key alive.
 * `serviceAccountId` scopes the lookup (the portal passes the signed-in user's account, so a
 * key of another account is "not found"); the operator CLI omits it.
 */
export function revokeApiKey(
  db: DbOrTx,
  clock: Clock,
  keyId: string,
  scope: { serviceAccountId?: string } = {},
): RevokedApiKey {
  return db.transaction((tx) => {
    const row =
      isUuid(keyId) &&
      tx
        .select()
        .from(apiKeys)
        .where(
          scope.serviceAccountId === undefined
            ? eq(apiKeys.id, keyId)
            : and(eq(apiKeys.id, keyId), eq(apiKeys.serviceAccountId, scope.serviceAccountId)),
        )
        .get();
    if (!row) throw new ApiError("not_found", `No API key ${keyId}.`);
    if (row.revokedAt) return { apiKey: toView(row), alreadyRevoked: true };
    const revokedAt = clock.now();
    tx.update(apiKeys).set({ revokedAt }).where(eq(apiKeys.id, keyId)).run();
    return { apiKey: toView({ ...row, revokedAt }), alreadyRevoked: false };
  });
}
