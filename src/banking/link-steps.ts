// The steps linking and renewing share (link.ts, renew.ts): moving a connection's status
// through applyConnectionSnapshot (the path every status move takes, so each move is announced
// with connection.status.changed), asking the bank for consent (a redirect with a one-time
// state), claiming a SimpleFIN setup token, and the first sync. Provider calls happen outside
// transactions.
import { eq } from "drizzle-orm";
import type { Config } from "../config/config.ts";
import { ApiError } from "../core/errors.ts";
import type { MasterKey } from "../crypto/master-key.ts";
import { randomBase64Url, sha256Hex } from "../crypto/tokens.ts";
import type { ConnectionStatus } from "../db/schema.ts";
import type { Db } from "../db/store.ts";
import { applyConnectionSnapshot } from "./apply.ts";
import { getConnection } from "./connections.ts";
import type { ConnectionSnapshot } from "./model.ts";
import { withoutUrlPaths } from "./notice.ts";
import type { ProviderRegistry } from "./provider.ts";
import type { EnableBankingClient } from "./providers/enable-banking/client.ts";
import { type EbAccount, usableEbAccounts } from "./providers/enable-banking/transform.ts";
import { ProviderError } from "./providers/errors.ts";
import type { ProviderHttp } from "./providers/http.ts";
import { createProviders, type RealBankClients, realBankClients } from "./providers/registry.ts";
import { providerSecretBox } from "./providers/secrets.ts";
import { type SyncDeps, type SyncResult, syncConnection } from "./sync.ts";

/** How long the user has to approve at the bank before the callback's state lapses. */
export const linkStateTtlMs = 60 * 60 * 1000;

/** A sync's dependencies (linking ends in the first sync), the bank's settings and the key. */
export interface LinkDeps extends SyncDeps {
  config: Config;
  masterKey: MasterKey;
  /** Tests may pass their own clients; else built from the config. */
  clients?: RealBankClients;
  /** Tests may pass their own provider HTTP client (e.g. a short timeout); the first sync
   * then pulls over it too. */
  http?: ProviderHttp;
}

export type LinkStart =
  | { kind: "redirect"; connectionId: string; url: string; stateExpiresAt: Date }
  | { kind: "paste_token"; message: string };

/** Where a link was started: the portal binds it to the browser's link-cookie nonce. */
export interface LinkOrigin {
  browserNonce?: string;
}

export interface LinkResult {
  connectionId: string;
  status: ConnectionStatus;
  /** The first sync, when the connection was linked. */
  firstSync?: SyncResult;
  /** The user declined at the bank (a declined renewal keeps the connection's status). */
  declined?: boolean;
}

export function clientsOf(deps: LinkDeps): RealBankClients {
  return deps.clients ?? realBankClients(deps.clock, { config: deps.config, http: deps.http });
}

export function enableBankingClientOf(deps: LinkDeps): EnableBankingClient {
  const client = clientsOf(deps).enableBanking;
  if (!client)
    throw new ApiError(
      "invalid_state",
      "Enable Banking is not configured on this instance (enableBankingApplicationId, enableBankingKeyFile).",
    );
  return client;
}

function providersOf(deps: LinkDeps): ProviderRegistry {
  if (!deps.http) return deps.providers;
  return createProviders(deps.clock, {
    config: deps.config,
    masterKey: deps.masterKey.bytes,
    http: deps.http,
  });
}

/** Moves a connection's status (and stores accounts when given) and announces the move. */
export async function moveTo(
  deps: LinkDeps,
  connectionId: string,
  snapshot: ConnectionSnapshot,
  extra: {
    announce?: boolean;
    set?: Record<string, unknown>;
    /** Writes that must commit with the move (e.g. a renewal's account remapping). */
    before?: (tx: Db) => Promise<void>;
  } = {},
): Promise<void> {
  const result = await deps.db.write(async (tx) => {
    await extra.before?.(tx);
    if (extra.set) {
      await tx.update(tx.t.connections).set(extra.set).where(eq(tx.t.connections.id, connectionId));
    }
    const connection = await getConnection(tx, connectionId);
    const applied = await applyConnectionSnapshot(tx, deps.clock, connection, snapshot, {
      fetchedAt: deps.clock.now(),
      ...(extra.announce ? { announceStatus: true } : {}),
    });
    return applied;
  });
  if (result.eventsRaised > 0) deps.outbox.notify();
}

/**
 * The snapshot of an Enable Banking session the bank has just approved: `linked`, carrying the
 * accounts Svc can store (their transactions come with the first sync).
 */
export function linkedEbSnapshot(session: { accounts: EbAccount[] }): ConnectionSnapshot {
  return {
    status: "linked",
    accounts: usableEbAccounts(session.accounts).map((account) => ({ account, transactions: [] })),
  };
}

/** The ApiError a provider failure during linking answers with. */
export function linkFailure(error: unknown, message: string): unknown {
  if (!(error instanceof ProviderError)) return error;
  const code =
    error.kind === "unavailable" || error.kind === "rate_limited"
      ? "unavailable"
      : "invalid_request";
  return new ApiError(code, `The bank link did not complete: ${withoutUrlPaths(message)}`);
}

/** A provider failure during linking: the table decides the status; the caller gets an ApiError. */
export async function failLink(
  deps: LinkDeps,
  connectionId: string,
  error: unknown,
): Promise<never> {
  const message = withoutUrlPaths(error instanceof Error ? error.message : String(error));
  const status =
    error instanceof ProviderError && error.kind === "user_declined" ? "rejected" : "error";
  await moveTo(deps, connectionId, { status, error: message });
  throw linkFailure(error, message);
}

/**
 * When the consent asked of the bank ends: the days asked for, capped at the bank's
 * `maximum_consent_validity` (seconds, from Enable Banking's bank list): Enable Banking
 * refuses a `valid_until` beyond it.
 */
async function consentEnd(
  client: EnableBankingClient,
  input: { bank: string; country: string; consentDays: number; now: Date },
): Promise<Date> {
  const asked = input.consentDays * 86_400_000;
  const aspsp = (await client.listAspsps(input.country)).find((a) => a.name === input.bank);
  const maxMs = aspsp?.maximum_consent_validity ? aspsp.maximum_consent_validity * 1000 : asked;
  return new Date(input.now.getTime() + Math.min(asked, maxMs));
}

/**
 * Asks Enable Banking for the user's consent at their bank: returns the bank's URL and stores
 * the one-time state (its SHA-256 only), bound to the connection, the starter and the purpose.
 * A provider failure throws it for the caller to handle.
 */
export async function askBankConsent(
  deps: LinkDeps,
  client: EnableBankingClient,
  input: {
    connectionId: string;
    serviceAccountId: string;
    bank: string;
    country: string;
    consentDays: number;
    purpose: "link" | "renew";
    origin: LinkOrigin;
  },
): Promise<Extract<LinkStart, { kind: "redirect" }>> {
  const now = deps.clock.now();
  const state = randomBase64Url(32);
  const auth = await client.startAuth({
    bank: input.bank,
    country: input.country,
    validUntil: await consentEnd(client, { ...input, now }),
    state,
    redirectUrl: `${deps.config.baseUrl}/connect/callback`,
  });
  const stateExpiresAt = new Date(now.getTime() + linkStateTtlMs);
  await deps.db.write((tx) =>
    tx.insert(tx.t.linkStates).values({
      stateHash: sha256Hex(state),
      serviceAccountId: input.serviceAccountId,
      connectionId: input.connectionId,
      createdAt: now,
      expiresAt: stateExpiresAt,
      bindingHash: input.origin.browserNonce ? sha256Hex(input.origin.browserNonce) : null,
      purpose: input.purpose,
    }),
  );
  return { kind: "redirect", connectionId: input.connectionId, url: auth.url, stateExpiresAt };
}

export async function firstSync(deps: LinkDeps, connectionId: string): Promise<SyncResult> {
  return syncConnection(deps, connectionId, {
    trigger: "portal",
    force: true,
    providers: providersOf(deps),
  });
}

/**
 * Claims a SimpleFIN setup token for the connection and reads it. The setup token is spent the
 * moment the claim answers: the access URL is sealed and stored before any read, so a failed
 * first read leaves a connection the next sync completes. A renewal replaces the stored access.
 */
export async function claimSimplefinAccess(
  deps: LinkDeps,
  connectionId: string,
  setupToken: string,
  onClaimFailed: (error: unknown) => Promise<never>,
): Promise<LinkResult> {
  let accessUrl: string;
  try {
    accessUrl = await clientsOf(deps).simplefin.claim(setupToken);
  } catch (error) {
    return onClaimFailed(error);
  }
  const box = providerSecretBox(deps.masterKey.bytes);
  await deps.db.write((tx) =>
    tx
      .update(tx.t.connections)
      .set({
        providerSecret: box.seal(accessUrl),
        consecutiveFailures: 0,
        nextPullAt: null,
        updatedAt: deps.clock.now(),
      })
      .where(eq(tx.t.connections.id, connectionId)),
  );
  const sync = await firstSync(deps, connectionId);
  const { status } = await getConnection(deps.db, connectionId);
  return { connectionId, status, firstSync: sync };
}
