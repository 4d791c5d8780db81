// Linking a real bank: startLink says what the user must do (follow a
// redirect to their bank, or paste a SimpleFIN setup token); completeLink finishes it from the
// callback or the token. The connection moves initiated -> awaiting_auth -> linked (or
// rejected), each move announced with connection.status.changed (link-steps.ts). The callback's
// state and the proof of its starter: link-state.ts. Renewing an existing connection: renew.ts.
import { eq } from "drizzle-orm";
import { accountDisabledNotice, getServiceAccount } from "../accounts/service-accounts.ts";
import { ApiError } from "../core/errors.ts";
import { newId } from "../core/ids.ts";
import type { ConnectionStatus } from "../db/schema.ts";
import { assertServiceAccount, getConnection } from "./connections.ts";
import { assertConnectionRoom, takeLinkAttempt } from "./link-limits.ts";
import { type LinkProof, takeState } from "./link-state.ts";
import {
  askBankConsent,
  claimSimplefinAccess,
  clientsOf,
  enableBankingClientOf,
  failLink,
  firstSync,
  type LinkDeps,
  type LinkOrigin,
  type LinkResult,
  type LinkStart,
  linkedEbSnapshot,
  moveTo,
} from "./link-steps.ts";
import { ProviderError, providerErrorEffects } from "./providers/errors.ts";
import { providerSecretBox } from "./providers/secrets.ts";
import { completeRenewal } from "./renew.ts";

export { linkStateTtlMs } from "./link-steps.ts";
export type { LinkDeps, LinkOrigin, LinkProof, LinkResult, LinkStart };

/** Consent asked of the bank by default (PSD2 allows up to 180 days). */
const defaultConsentDays = 90;
const maxConsentDays = 180;
const simplefinInstitution = "SimpleFIN Bridge";

export type LinkOptions =
  | { provider: "enable_banking"; country: string; bank: string; consentDays?: number }
  | { provider: "simplefin" };

export type LinkCompletion =
  | {
      provider: "enable_banking";
      state: string;
      code?: string;
      error?: string;
      proof: LinkProof;
    }
  | { provider: "simplefin"; serviceAccountId: string; setupToken: string };

async function createInitiated(
  deps: LinkDeps,
  serviceAccountId: string,
  provider: "enable_banking" | "simplefin",
  institution: string,
  state: unknown,
): Promise<string> {
  const id = newId();
  const now = deps.clock.now();
  await deps.db.write(async (tx) => {
    // Counted again in the transaction that adds the row (SQLite's single writer, PostgreSQL
    // SERIALIZABLE), so links racing each other cannot pass the limit.
    await assertConnectionRoom(tx, serviceAccountId);
    await tx.insert(tx.t.connections).values({
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
    });
  });
  await moveTo(deps, id, { status: "initiated" }, { announce: true });
  return id;
}

export async function startLink(
  deps: LinkDeps,
  serviceAccountId: string,
  options: LinkOptions,
  origin: LinkOrigin = {},
): Promise<LinkStart> {
  await assertServiceAccount(deps.db, serviceAccountId);
  await assertConnectionRoom(deps.db, serviceAccountId);
  if (options.provider === "simplefin") {
    return {
      kind: "paste_token",
      message:
        "Make a setup token at your SimpleFIN Bridge (New app connection) and paste it here.",
    };
  }
  const client = enableBankingClientOf(deps);
  const country = options.country.trim().toUpperCase();
  if (!/^[A-Z]{2}$/.test(country))
    throw new ApiError("invalid_request", "country must be a two-letter ISO code such as FI.");
  const bank = options.bank.trim();
  if (!bank || bank.length > 200) throw new ApiError("invalid_request", "bank must name a bank.");
  const consentDays = options.consentDays ?? defaultConsentDays;
  if (!Number.isInteger(consentDays) || consentDays < 1 || consentDays > maxConsentDays)
    throw new ApiError("invalid_request", `consent days must be 1 to ${maxConsentDays}.`);
  await takeLinkAttempt(deps.db, deps.clock, serviceAccountId);

  const connectionId = await createInitiated(deps, serviceAccountId, "enable_banking", bank, {
    bank,
    country,
    accounts: [],
  });
  let start: Awaited<ReturnType<typeof askBankConsent>>;
  try {
    start = await askBankConsent(deps, client, {
      connectionId,
      serviceAccountId,
      bank,
      country,
      consentDays,
      purpose: "link",
      origin,
    });
  } catch (error) {
    return failLink(deps, connectionId, error);
  }
  await moveTo(deps, connectionId, { status: "awaiting_auth" });
  return start;
}

async function completeEnableBanking(
  deps: LinkDeps,
  input: Extract<LinkCompletion, { provider: "enable_banking" }>,
): Promise<LinkResult> {
  const taken = await takeState(deps, input.state, input.proof);
  const { connectionId } = taken;
  // A link started before the account was disabled does not complete after (docs/decisions.md:
  // a disabled account's connections are not created or changed); no bank session is made.
  const owner = (await getConnection(deps.db, connectionId)).serviceAccountId;
  if ((await getServiceAccount(deps.db, owner)).disabled) {
    throw new ApiError("account_disabled", `The bank was not connected. ${accountDisabledNotice}`);
  }
  if (taken.purpose === "renew") return completeRenewal(deps, connectionId, input);
  if (input.error || !input.code) {
    // The bank sent the user back without a code: they declined (or the bank refused).
    const status = providerErrorEffects.user_declined.status as ConnectionStatus;
    await moveTo(deps, connectionId, { status });
    return { connectionId, status, declined: true };
  }
  const client = enableBankingClientOf(deps);
  let session: Awaited<ReturnType<typeof client.createSession>>;
  try {
    session = await client.createSession(input.code);
  } catch (error) {
    return failLink(deps, connectionId, error);
  }
  const connection = await getConnection(deps.db, connectionId);
  const previous = JSON.parse(connection.providerState) as { bank: string; country: string };
  const box = providerSecretBox(deps.masterKey.bytes);
  await moveTo(deps, connectionId, linkedEbSnapshot(session), {
    set: {
      providerSecret: box.seal(session.sessionId),
      consentExpiresAt: session.validUntil,
      providerState: JSON.stringify({ ...previous, accounts: session.accounts }),
    },
  });
  return { connectionId, status: "linked", firstSync: await firstSync(deps, connectionId) };
}

async function completeSimplefin(
  deps: LinkDeps,
  input: Extract<LinkCompletion, { provider: "simplefin" }>,
): Promise<LinkResult> {
  await assertServiceAccount(deps.db, input.serviceAccountId);
  await assertConnectionRoom(deps.db, input.serviceAccountId);
  await takeLinkAttempt(deps.db, deps.clock, input.serviceAccountId);
  const connectionId = await createInitiated(
    deps,
    input.serviceAccountId,
    "simplefin",
    simplefinInstitution,
    {},
  );
  return claimSimplefinAccess(deps, connectionId, input.setupToken, (error) =>
    failLink(deps, connectionId, error),
  );
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
