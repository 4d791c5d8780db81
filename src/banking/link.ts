// Linking a real bank (issue 17 "Link flow"): startLink says what the user must do (follow a
// redirect to their bank, or paste a SimpleFIN setup token); completeLink finishes it from the
// callback or the token. The connection moves initiated -> awaiting_auth -> linked (or
// rejected), each move announced with connection.status.changed through applyConnectionSnapshot,
// the path every status move takes. Provider calls happen outside transactions. The callback's
// `state` is stored only as its SHA-256, bound to the account and its connection, used once,
// and expires. It is also bound to its starter (docs/decisions.md "Bank links are bound to the
// browser"): a link started in the portal completes only for the browser holding its link
// cookie (link-cookie.ts) or for the account's owner signed in; one started from the CLI, only
// for the owner or an operator signed in. Without that proof nothing is attached and the state
// stays usable for the one who may finish it.
import { eq } from "drizzle-orm";
import { activateIfRealBankAndBilling } from "../accounts/activation.ts";
import { accountDisabledNotice, getServiceAccount } from "../accounts/service-accounts.ts";
import { randomBase64Url, sha256Hex } from "../crypto/tokens.ts";
import type { ConnectionStatus, Row } from "../db/schema.ts";
import { first } from "../db/store.ts";
import { ApiError } from "../http/errors.ts";
import { newId } from "../ids.ts";
import type { Services } from "../services.ts";
import { applyConnectionSnapshot } from "./apply.ts";
import { assertServiceAccount, getConnection } from "./connections.ts";
import type { ConnectionSnapshot } from "./model.ts";
import type { ProviderRegistry } from "./provider.ts";
import { usableEbAccounts } from "./providers/enable-banking/transform.ts";
import { ProviderError, providerErrorEffects } from "./providers/errors.ts";
import { createProviders, type RealBankClients, realBankClients } from "./providers/registry.ts";
import { providerSecretBox } from "./providers/secrets.ts";
import { type SyncResult, syncConnection } from "./sync.ts";

/** How long the user has to approve at the bank before the callback's state lapses. */
export const linkStateTtlMs = 60 * 60 * 1000;
/** Consent asked of the bank by default (PSD2 allows up to 180 days). */
export const defaultConsentDays = 90;
export const maxConsentDays = 180;
export const simplefinInstitution = "SimpleFIN Bridge";

export type LinkDeps = Pick<
  Services,
  "db" | "clock" | "log" | "outbox" | "config" | "masterKey"
> & {
  /** Tests may pass their own clients; else built from the config. */
  clients?: RealBankClients;
};

export type LinkOptions =
  | { provider: "enable_banking"; country: string; bank: string; consentDays?: number }
  | { provider: "simplefin" };

export type LinkStart =
  | { kind: "redirect"; connectionId: string; url: string; stateExpiresAt: Date }
  | { kind: "paste_token"; message: string };

/** What the browser at the callback proves about who it is. */
export interface LinkProof {
  /** The nonce of the browser's link cookie, when it sent one. */
  browserNonce?: string | undefined;
  /** The portal user signed in in this browser, when there is one. */
  signedIn?: { serviceAccountId: string; isOperator: boolean } | undefined;
}

/** Where a link was started: the portal binds it to the browser's link-cookie nonce. */
export interface LinkOrigin {
  browserNonce?: string;
}

export type LinkCompletion =
  | {
      provider: "enable_banking";
      state: string;
      code?: string;
      error?: string;
      proof: LinkProof;
    }
  | { provider: "simplefin"; serviceAccountId: string; setupToken: string };

export interface LinkResult {
  connectionId: string;
  status: ConnectionStatus;
  /** The first sync, when the connection was linked. */
  firstSync?: SyncResult;
  /** The user declined at the bank (a declined renewal keeps the connection's status). */
  declined?: boolean;
}

function clientsOf(deps: LinkDeps): RealBankClients {
  return deps.clients ?? realBankClients(deps.clock, { config: deps.config });
}

function providersOf(deps: LinkDeps): ProviderRegistry {
  return createProviders(deps.clock, {
    config: deps.config,
    masterKey: deps.masterKey.bytes,
  });
}

/** Moves a connection's status (and stores accounts when given) and announces the move. */
async function moveTo(
  deps: LinkDeps,
  connectionId: string,
  snapshot: ConnectionSnapshot,
  extra: { announce?: boolean; set?: Record<string, unknown> } = {},
): Promise<void> {
  const result = await deps.db.write(async (tx) => {
    if (extra.set) {
      await tx.update(tx.t.connections).set(extra.set).where(eq(tx.t.connections.id, connectionId));
    }
    const connection = await getConnection(tx, connectionId);
    const applied = await applyConnectionSnapshot(tx, deps.clock, connection, snapshot, {
      fetchedAt: deps.clock.now(),
      ...(extra.announce ? { announceStatus: true } : {}),
    });
    // A real bank linked on an account whose billing is set up: it goes active now (spec 3).
    if (snapshot.status === "linked")
      await activateIfRealBankAndBilling(tx, deps.clock, connection.serviceAccountId);
    return applied;
  });
  if (result.eventsRaised > 0) deps.outbox.notify();
}

async function createInitiated(
  deps: LinkDeps,
  serviceAccountId: string,
  provider: "enable_banking" | "simplefin",
  institution: string,
  state: unknown,
): Promise<string> {
  const id = newId();
  const now = deps.clock.now();
  await deps.db.write((tx) =>
    tx.insert(tx.t.connections).values({
      id,
      serviceAccountId,
      provider,
      // Not the provider's secret: the session id / access URL live sealed in provider_secret.
      externalId: `${provider}-${id}`,
      institution,
      status: "initiated",
      providerState: JSON.stringify(state),
      createdAt: now,
      updatedAt: now,
    }),
  );
  await moveTo(deps, id, { status: "initiated" }, { announce: true });
  return id;
}

/** A provider failure during linking: the table decides the status; the caller gets an ApiError. */
async function failLink(deps: LinkDeps, connectionId: string, error: unknown): Promise<never> {
  const message = error instanceof Error ? error.message : String(error);
  const status =
    error instanceof ProviderError && error.kind === "user_declined" ? "rejected" : "error";
  await moveTo(deps, connectionId, { status, error: message });
  if (error instanceof ProviderError) {
    const code =
      error.kind === "unavailable" || error.kind === "rate_limited"
        ? "unavailable"
        : "invalid_request";
    throw new ApiError(code, `The bank link did not complete: ${message}`);
  }
  throw error;
}

export async function startLink(
  deps: LinkDeps,
  serviceAccountId: string,
  options: LinkOptions,
  origin: LinkOrigin = {},
): Promise<LinkStart> {
  await assertServiceAccount(deps.db, serviceAccountId);
  if (options.provider === "simplefin") {
    return {
      kind: "paste_token",
      message:
        "Make a setup token at your SimpleFIN Bridge (New app connection) and paste it here.",
    };
  }
  const client = clientsOf(deps).enableBanking;
  if (!client)
    throw new ApiError(
      "invalid_state",
      "Enable Banking is not configured on this instance (enableBankingApplicationId, enableBankingKeyFile).",
    );
  const country = options.country.trim().toUpperCase();
  if (!/^[A-Z]{2}$/.test(country))
    throw new ApiError("invalid_request", "country must be a two-letter ISO code such as FI.");
  const bank = options.bank.trim();
  if (!bank || bank.length > 200) throw new ApiError("invalid_request", "bank must name a bank.");
  const consentDays = options.consentDays ?? defaultConsentDays;
  if (!Number.isInteger(consentDays) || consentDays < 1 || consentDays > maxConsentDays)
    throw new ApiError("invalid_request", `consent days must be 1 to ${maxConsentDays}.`);

  const connectionId = await createInitiated(deps, serviceAccountId, "enable_banking", bank, {
    bank,
    country,
    accounts: [],
  });
  const now = deps.clock.now();
  const state = randomBase64Url(32);
  let auth: { url: string };
  try {
    auth = await client.startAuth({
      bank,
      country,
      validUntil: new Date(now.getTime() + consentDays * 86_400_000),
      state,
      redirectUrl: `${deps.config.baseUrl}/connect/callback`,
    });
  } catch (error) {
    return failLink(deps, connectionId, error);
  }
  const stateExpiresAt = new Date(now.getTime() + linkStateTtlMs);
  await deps.db.write((tx) =>
    tx.insert(tx.t.linkStates).values({
      stateHash: sha256Hex(state),
      serviceAccountId,
      connectionId,
      createdAt: now,
      expiresAt: stateExpiresAt,
      bindingHash: origin.browserNonce ? sha256Hex(origin.browserNonce) : null,
    }),
  );
  await moveTo(deps, connectionId, { status: "awaiting_auth" });
  return { kind: "redirect", connectionId, url: auth.url, stateExpiresAt };
}

type LinkStateRow = Row<"linkStates">;

/** Whether the browser at the callback may finish the link the state names. */
function proves(row: LinkStateRow, proof: LinkProof): boolean {
  if (row.bindingHash && proof.browserNonce && sha256Hex(proof.browserNonce) === row.bindingHash)
    return true;
  if (proof.signedIn?.serviceAccountId === row.serviceAccountId) return true;
  // An operator may finish a link an operator started from the CLI, never one of the portal.
  return row.bindingHash === null && proof.signedIn?.isOperator === true;
}

/** The page's words when the browser cannot prove it may finish the link. */
export function unprovenLinkMessage(startedInPortal: boolean): string {
  return startedInPortal
    ? "This bank link was started in another browser, so nothing was connected. Finish it in the browser where you started connecting the bank, or sign in to your account in this browser and press Continue. If you did not start connecting a bank, close this page."
    : "This bank link was started from the command line, so nothing was connected yet. Sign in to the account's portal in this browser as its owner or an operator, then press Continue. If you did not start connecting a bank, close this page.";
}

/**
 * Takes the callback's state: unexpired, proven by its starter, then used up. An unproven
 * attempt leaves it in place (and attaches nothing), so its starter can still finish.
 */
async function takeState(deps: LinkDeps, state: string, proof: LinkProof): Promise<LinkStateRow> {
  const hash = sha256Hex(state);
  const now = deps.clock.now().getTime();
  const taken = await deps.db.write(async (tx) => {
    const { linkStates } = tx.t;
    const row = await first(tx.select().from(linkStates).where(eq(linkStates.stateHash, hash)));
    if (!row) return { outcome: "unknown" as const };
    if (row.expiresAt.getTime() <= now) {
      await tx.delete(linkStates).where(eq(linkStates.stateHash, hash));
      return { outcome: "expired" as const };
    }
    if (!proves(row, proof)) return { outcome: "unproven" as const, row };
    await tx.delete(linkStates).where(eq(linkStates.stateHash, hash));
    return { outcome: "taken" as const, row };
  });
  if (taken.outcome === "unknown")
    throw new ApiError(
      "invalid_request",
      "This bank link is unknown or was already used. Start connecting the bank again.",
    );
  if (taken.outcome === "expired")
    throw new ApiError("code_expired", "This bank link expired. Start connecting the bank again.");
  if (taken.outcome === "unproven") {
    deps.log.warn("bank link callback without proof of its starter; nothing attached", {
      connectionId: taken.row.connectionId,
    });
    throw new ApiError("forbidden", unprovenLinkMessage(taken.row.bindingHash !== null));
  }
  return taken.row;
}

async function firstSync(deps: LinkDeps, connectionId: string): Promise<SyncResult> {
  return syncConnection(deps, connectionId, {
    trigger: "portal",
    force: true,
    providers: providersOf(deps),
  });
}

async function completeEnableBanking(
  deps: LinkDeps,
  input: Extract<LinkCompletion, { provider: "enable_banking" }>,
): Promise<LinkResult> {
  const { connectionId } = await takeState(deps, input.state, input.proof);
  // A link started before the account was disabled does not complete after (docs/decisions.md:
  // a disabled account's connections are not created or changed); no bank session is made.
  const owner = (await getConnection(deps.db, connectionId)).serviceAccountId;
  if ((await getServiceAccount(deps.db, owner)).disabled) {
    throw new ApiError("account_disabled", `The bank was not connected. ${accountDisabledNotice}`);
  }
  if (input.error || !input.code) {
    // The bank sent the user back without a code: they declined (or the bank refused).
    const status = providerErrorEffects.user_declined.status as ConnectionStatus;
    await moveTo(deps, connectionId, { status });
    return { connectionId, status, declined: true };
  }
  const client = clientsOf(deps).enableBanking;
  if (!client) throw new ApiError("invalid_state", "Enable Banking is not configured.");
  let session: Awaited<ReturnType<typeof client.createSession>>;
  try {
    session = await client.createSession(input.code);
  } catch (error) {
    return failLink(deps, connectionId, error);
  }
  const connection = await getConnection(deps.db, connectionId);
  const previous = JSON.parse(connection.providerState) as { bank: string; country: string };
  const box = providerSecretBox(deps.masterKey.bytes);
  await moveTo(
    deps,
    connectionId,
    {
      status: "linked",
      accounts: usableEbAccounts(session.accounts).map((account) => ({
        account,
        transactions: [],
      })),
    },
    {
      set: {
        providerSecret: box.seal(session.sessionId),
        consentExpiresAt: session.validUntil,
        providerState: JSON.stringify({ ...previous, accounts: session.accounts }),
      },
    },
  );
  return { connectionId, status: "linked", firstSync: await firstSync(deps, connectionId) };
}

async function completeSimplefin(
  deps: LinkDeps,
  input: Extract<LinkCompletion, { provider: "simplefin" }>,
): Promise<LinkResult> {
  await assertServiceAccount(deps.db, input.serviceAccountId);
  const client = clientsOf(deps).simplefin;
  const connectionId = await createInitiated(
    deps,
    input.serviceAccountId,
    "simplefin",
    simplefinInstitution,
    {},
  );
  let accessUrl: string;
  try {
    accessUrl = await client.claim(input.setupToken);
  } catch (error) {
    return failLink(deps, connectionId, error);
  }
  // The setup token is spent the moment the claim answers: the access URL is sealed and stored
  // before any read, so a failed first read leaves a connection the next sync completes.
  const box = providerSecretBox(deps.masterKey.bytes);
  await deps.db.write((tx) =>
    tx
      .update(tx.t.connections)
      .set({ providerSecret: box.seal(accessUrl), updatedAt: deps.clock.now() })
      .where(eq(tx.t.connections.id, connectionId)),
  );
  const sync = await firstSync(deps, connectionId);
  const { status } = await getConnection(deps.db, connectionId);
  return { connectionId, status, firstSync: sync };
}

export async function completeLink(deps: LinkDeps, input: LinkCompletion): Promise<LinkResult> {
  return input.provider === "enable_banking"
    ? completeEnableBanking(deps, input)
    : completeSimplefin(deps, input);
}

/**
 * Removes a real-bank connection with its accounts and data; for Enable Banking the session is
 * deleted at the provider first (a session already gone there is no obstacle).
 */
export async function removeConnection(
  deps: LinkDeps,
  connectionId: string,
): Promise<{ providerSessionDeleted: boolean }> {
  const connection = await getConnection(deps.db, connectionId);
  let providerSessionDeleted = false;
  if (connection.provider === "enable_banking" && connection.providerSecret) {
    const client = clientsOf(deps).enableBanking;
    if (!client)
      throw new ApiError(
        "invalid_state",
        "Enable Banking is not configured; cannot end the session.",
      );
    const sessionId = providerSecretBox(deps.masterKey.bytes).open(connection.providerSecret);
    try {
      await client.deleteSession(sessionId);
      providerSessionDeleted = true;
    } catch (error) {
      if (
        !(error instanceof ProviderError) ||
        error.kind === "unavailable" ||
        error.kind === "rate_limited"
      )
        throw new ApiError(
          "unavailable",
          `Enable Banking could not end the session; try again later (${(error as Error).message})`,
        );
    }
  }
  await deps.db.write((tx) =>
    tx.delete(tx.t.connections).where(eq(tx.t.connections.id, connectionId)),
  );
  return { providerSessionDeleted };
}

/** The banks Enable Banking offers in a country, for the portal's bank list. */
export async function listBanks(
  deps: LinkDeps,
  country: string,
): Promise<{ name: string; country: string }[]> {
  const client = clientsOf(deps).enableBanking;
  if (!client) throw new ApiError("invalid_state", "Enable Banking is not configured.");
  const code = country.trim().toUpperCase();
  if (!/^[A-Z]{2}$/.test(code))
    throw new ApiError("invalid_request", "country must be a two-letter ISO code such as FI.");
  try {
    return (await client.listAspsps(code)).map((a) => ({ name: a.name, country: a.country }));
  } catch (error) {
    if (error instanceof ProviderError)
      throw new ApiError(
        "unavailable",
        `Enable Banking's bank list is not available: ${error.message}`,
      );
    throw error;
  }
}
