// API key lifecycle (spec 2 "API key", spec 3 key states): create (full key shown once),
// list (revoked keys stay listed with their date), revoke (effective on the next request).
// The portal and the CLI both call these.
import { and, count, desc, eq, isNull } from "drizzle-orm";
import { z } from "zod";
import type { Clock } from "../core/clock.ts";
import { ApiError } from "../core/errors.ts";
import { isUuid, newId } from "../core/ids.ts";
import type { Row } from "../db/schema.ts";
import { type Db, first } from "../db/store.ts";
import { displayPrefix, generateApiKey, hashApiKey } from "./format.ts";

/** The spec leaves the number open ("generous"); this bounds what a leaked portal session can mint. */
export const maxActiveKeysPerAccount = 50;
const defaultKeyName = "API key";

const keyNameSchema = z
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

type ApiKeyRow = Row<"apiKeys">;

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

async function requireAccount(db: Db, serviceAccountId: string): Promise<void> {
  const { serviceAccounts } = db.t;
  const found =
    isUuid(serviceAccountId) &&
    (await first(
      db
        .select({ id: serviceAccounts.id })
        .from(serviceAccounts)
        .where(eq(serviceAccounts.id, serviceAccountId)),
    ));
  if (!found) throw new ApiError("not_found", `No service account ${serviceAccountId}.`);
}

/** Creates a key for the account and returns the full key once. */
export async function createApiKey(
  db: Db,
  clock: Clock,
  input: { serviceAccountId: string; name?: string },
): Promise<CreatedApiKey> {
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
  const { apiKeys } = db.t;
  await db.write(async (tx) => {
    await requireAccount(tx, input.serviceAccountId);
    const active = await first(
      tx
        .select({ n: count() })
        .from(apiKeys)
        .where(
          and(eq(apiKeys.serviceAccountId, input.serviceAccountId), isNull(apiKeys.revokedAt)),
        ),
    );
    if ((active?.n ?? 0) >= maxActiveKeysPerAccount) {
      throw new ApiError(
        "limit_exceeded",
        `This account already has ${maxActiveKeysPerAccount} active API keys, the most allowed. Revoke one it no longer uses first.`,
      );
    }
    await tx.insert(apiKeys).values(row);
  });
  return { apiKey: toView(row), key };
}

/** Every key of the account, newest first, revoked ones included with their revocation date. */
export async function listApiKeys(db: Db, serviceAccountId: string): Promise<ApiKeyView[]> {
  await requireAccount(db, serviceAccountId);
  const { apiKeys } = db.t;
  const rows = await db
    .select()
    .from(apiKeys)
    .where(eq(apiKeys.serviceAccountId, serviceAccountId))
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
  return rows.map(toView);
}

export interface RevokedApiKey {
  apiKey: ApiKeyView;
  /** True when the key had been revoked before; its original revocation date is kept. */
  alreadyRevoked: boolean;
}

/**
 * Revokes a key. The next request with it gets 401 invalid_api_key: authentication reads the
 * key row on every request, so no cache in any process can keep a revoked key alive.
 * `serviceAccountId` scopes the lookup (the portal passes the signed-in user's account, so a
 * key of another account is "not found"); the operator CLI omits it.
 */
export function revokeApiKey(
  db: Db,
  clock: Clock,
  keyId: string,
  scope: { serviceAccountId?: string } = {},
): Promise<RevokedApiKey> {
  const { apiKeys } = db.t;
  return db.write(async (tx) => {
    const row =
      isUuid(keyId) &&
      (await first(
        tx
          .select()
          .from(apiKeys)
          .where(
            scope.serviceAccountId === undefined
              ? eq(apiKeys.id, keyId)
              : and(eq(apiKeys.id, keyId), eq(apiKeys.serviceAccountId, scope.serviceAccountId)),
          ),
      ));
    if (!row) throw new ApiError("not_found", `No API key ${keyId}.`);
    if (row.revokedAt) return { apiKey: toView(row), alreadyRevoked: true };
    const revokedAt = clock.now();
    await tx.update(apiKeys).set({ revokedAt }).where(eq(apiKeys.id, keyId));
    return { apiKey: toView({ ...row, revokedAt }), alreadyRevoked: false };
  });
}
