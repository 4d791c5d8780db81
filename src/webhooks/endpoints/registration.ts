// Registering an endpoint and rotating its secret (spec 2, 3, 8). The signing secret is shown
// once, here; afterwards only its salt and hash exist (docs/security.md).
import { count, eq } from "drizzle-orm";
import { z } from "zod";
import type { Config } from "../../config/config.ts";
import type { Clock } from "../../core/clock.ts";
import { ApiError } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import type { MasterKey } from "../../crypto/master-key.ts";
import { type Db, first } from "../../db/store.ts";
import type { Resolver } from "../../net/resolver.ts";
import { parseEventTypeFilter, storeEventTypeFilter } from "../events/event-filter.ts";
import {
  checkRegistrationBudgets,
  consumeRegistration,
  countRefusedRegistration,
} from "./limits.ts";
import { type EndpointRef, type EndpointView, endpointView, findEndpoint } from "./records.ts";
import { issueSigningSecret } from "./secrets.ts";
import { validateEndpointUrl } from "./url.ts";

/** What registering an endpoint needs: the URL is resolved and checked, the secret derived. */
export interface RegistrationDeps {
  db: Db;
  clock: Clock;
  config: Config;
  masterKey: MasterKey;
  resolve: Resolver;
}

/** Spec 2: at most 3 endpoints per account. */
export const maxEndpointsPerAccount = 3;
const maxDescriptionLength = 200;

const registerEndpointInput = z.object({
  serviceAccountId: z.string(),
  url: z.string(),
  description: z
    .string()
    .trim()
    .max(maxDescriptionLength, `description must be at most ${maxDescriptionLength} characters`)
    .optional(),
  /** Account event types to receive; null or absent = all (see events/event-filter.ts). */
  eventTypes: z.array(z.string().max(100)).max(20).nullable().optional(),
});
export type RegisterEndpointInput = z.input<typeof registerEndpointInput>;

export interface EndpointWithSecret {
  endpoint: EndpointView;
  /** `whsec_...`, returned exactly once (at registration or rotation). */
  signingSecret: string;
}

async function endpointCount(db: Db, serviceAccountId: string): Promise<number> {
  const { webhookEndpoints } = db.t;
  const row = await first(
    db
      .select({ n: count() })
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.serviceAccountId, serviceAccountId)),
  );
  return row?.n ?? 0;
}

function refuseOverCap(): never {
  throw new ApiError(
    "limit_exceeded",
    `An account can have at most ${maxEndpointsPerAccount} webhook endpoints; remove one before adding another.`,
  );
}

/**
 * Registers a webhook endpoint: URL rules and SSRF guard, 3 per account, 10 registrations per
 * hour per account. A URL refused by the rules (shape, scheme, port, private address, no
 * resolution) does not use one of the 10: it is counted against its own budget of 30 refused
 * attempts per hour, which also bounds the DNS lookups an account can make us do.
 * New endpoints are active but unverified: they receive only test and verification sends until
 * verified.
 */
export async function registerEndpoint(
  ctx: RegistrationDeps,
  input: RegisterEndpointInput,
): Promise<EndpointWithSecret> {
  const parsed = registerEndpointInput.safeParse(input);
  if (!parsed.success) throw new ApiError("invalid_request", `${parsed.error.issues[0]?.message}.`);
  const { serviceAccountId, description } = parsed.data;
  const eventTypes = parseEventTypeFilter(parsed.data.eventTypes ?? null);
  const { db, clock } = ctx;
  const { serviceAccounts, webhookEndpoints } = db.t;
  const owner = await first(
    db
      .select({ id: serviceAccounts.id })
      .from(serviceAccounts)
      .where(eq(serviceAccounts.id, serviceAccountId)),
  );
  if (!owner) throw new ApiError("not_found", `No service account ${serviceAccountId}.`);
  await checkRegistrationBudgets(db, clock, serviceAccountId);
  if ((await endpointCount(db, serviceAccountId)) >= maxEndpointsPerAccount) refuseOverCap();
  const options = { allowPrivate: ctx.config.unsafeAllowPrivateTargets };
  let url: URL;
  try {
    url = await validateEndpointUrl(parsed.data.url, ctx.resolve, options);
  } catch (error) {
    if (error instanceof ApiError && error.code === "invalid_url") {
      await countRefusedRegistration(db, clock, serviceAccountId);
    }
    throw error;
  }

  const id = newId();
  const secret = issueSigningSecret(ctx.masterKey, id);
  const [row] = await db.write(async (tx) => {
    // Re-counted inside the write transaction: two registrations racing cannot both pass.
    if ((await endpointCount(tx, serviceAccountId)) >= maxEndpointsPerAccount) refuseOverCap();
    await consumeRegistration(tx, clock, serviceAccountId);
    const now = clock.now();
    return tx
      .insert(webhookEndpoints)
      .values({
        id,
        serviceAccountId,
        url: url.href,
        description: description || null,
        secretSalt: secret.salt,
        secretHash: secret.hash,
        status: "active",
        verifiedAt: null,
        failureCount: 0,
        eventTypes: storeEventTypeFilter(eventTypes),
        createdAt: now,
        updatedAt: now,
      })
      .returning();
  });
  if (!row) throw new Error("the new endpoint was not stored");
  return { endpoint: endpointView(row), signingSecret: secret.secret };
}

/**
 * Issues a new signing secret (spec 3: the old one stops verifying the instant the new one is
 * issued). Every attempt derives the secret from the stored salt, so the next attempt, retries
 * included, is signed with the new secret.
 */
export async function rotateEndpointSecret(
  ctx: { db: Db; clock: Clock; masterKey: MasterKey },
  ref: EndpointRef,
): Promise<EndpointWithSecret> {
  const endpoint = await findEndpoint(ctx.db, ref);
  const secret = issueSigningSecret(ctx.masterKey, endpoint.id);
  const { webhookEndpoints } = ctx.db.t;
  const [row] = await ctx.db.write((tx) =>
    tx
      .update(webhookEndpoints)
      .set({ secretSalt: secret.salt, secretHash: secret.hash, updatedAt: ctx.clock.now() })
      .where(eq(webhookEndpoints.id, endpoint.id))
      .returning(),
  );
  if (!row) throw new ApiError("not_found", `No webhook endpoint ${ref.endpointId}.`);
  return { endpoint: endpointView(row), signingSecret: secret.secret };
}

const updateEndpointInput = z
  .object({
    description: registerEndpointInput.shape.description.nullable(),
    eventTypes: registerEndpointInput.shape.eventTypes,
  })
  .partial();
export type UpdateEndpointInput = z.input<typeof updateEndpointInput>;

/**
 * Changes what an endpoint receives (event types) or its description; absent fields stay.
 * Takes effect for events raised from now on; deliveries already queued are sent.
 */
export async function updateEndpoint(
  ctx: { db: Db; clock: Clock },
  ref: EndpointRef,
  input: UpdateEndpointInput,
): Promise<EndpointView> {
  const parsed = updateEndpointInput.safeParse(input);
  if (!parsed.success) throw new ApiError("invalid_request", `${parsed.error.issues[0]?.message}.`);
  const endpoint = await findEndpoint(ctx.db, ref);
  const changes: { description?: string | null; eventTypes?: string | null } = {};
  if (parsed.data.description !== undefined) changes.description = parsed.data.description || null;
  if (parsed.data.eventTypes !== undefined) {
    changes.eventTypes = storeEventTypeFilter(parseEventTypeFilter(parsed.data.eventTypes));
  }
  const { webhookEndpoints } = ctx.db.t;
  const [row] = await ctx.db.write((tx) =>
    tx
      .update(webhookEndpoints)
      .set({ ...changes, updatedAt: ctx.clock.now() })
      .where(eq(webhookEndpoints.id, endpoint.id))
      .returning(),
  );
  if (!row) throw new ApiError("not_found", `No webhook endpoint ${ref.endpointId}.`);
  return endpointView(row);
}
