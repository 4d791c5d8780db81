// Renew (spec 3 "Connection"; docs/providers.md "Consent and Renew"): runs the provider's link
// flow again for an existing connection and keeps its connection_id, every account_id (accounts
// matched by the provider's identifiers) and so every transaction_id. Works for `linked`,
// `expired`, `suspended` and `error` connections alike. Starting a renewal changes nothing; a
// completed one moves the connection to `linked` (announced with connection.status.changed
// when the status moves); a declined or failed one leaves the connection as it was.
// - Enable Banking: a new authorisation at the bank (callback with a state of purpose `renew`),
//   a new session whose accounts are matched to the stored ones
//   (providers/enable-banking/account-match.ts); the old session is then ended at the provider.
// - SimpleFIN: a new setup token; its access replaces the stored one. The Bridge's account ids
//   do not change with the access, so the accounts match by id.
import { and, eq } from "drizzle-orm";
import { accountDisabledNotice, getServiceAccount } from "../accounts/service-accounts.ts";
import { ApiError } from "../core/errors.ts";
import type { Db } from "../db/store.ts";
import { getConnection } from "./connections.ts";
import { assertConnectionRoom, takeLinkAttempt } from "./link-limits.ts";
import {
  askBankConsent,
  claimSimplefinAccess,
  enableBankingClientOf,
  firstSync,
  type LinkDeps,
  type LinkOrigin,
  type LinkResult,
  type LinkStart,
  linkedEbSnapshot,
  linkFailure,
  moveTo,
} from "./link-steps.ts";
import {
  type AccountRemap,
  matchRenewedAccounts,
} from "./providers/enable-banking/account-match.ts";
import {
  type EnableBankingState,
  enableBankingStateSchema,
} from "./providers/enable-banking/provider.ts";
import { providerSecretBox } from "./providers/secrets.ts";
import type { ConnectionRow } from "./status.ts";

/** Consent asked of the bank on renewal (as for a new link). */
const renewConsentDays = 90;

/** The connection, when it can be renewed now; else the ApiError saying why not. */
async function renewable(deps: LinkDeps, connectionId: string): Promise<ConnectionRow> {
  const connection = await getConnection(deps.db, connectionId);
  if (connection.provider !== "enable_banking" && connection.provider !== "simplefin")
    throw new ApiError(
      "invalid_state",
      "Only real-bank connections (Enable Banking, SimpleFIN) have a consent to renew.",
    );
  if ((await getServiceAccount(deps.db, connection.serviceAccountId)).disabled)
    throw new ApiError(
      "account_disabled",
      `The connection was not renewed. ${accountDisabledNotice}`,
    );
  // A connection that no longer counts toward the limit counts again once renewed.
  if (connection.status === "rejected" || connection.status === "expired")
    await assertConnectionRoom(deps.db, connection.serviceAccountId);
  return connection;
}

function bankOf(connection: ConnectionRow): EnableBankingState {
  const parsed = enableBankingStateSchema.safeParse(JSON.parse(connection.providerState));
  if (!parsed.success)
    throw new ApiError("invalid_state", "This connection does not record which bank it is.");
  return parsed.data;
}

/**
 * Starts renewing: for Enable Banking, the bank's URL where the user approves again (state of
 * purpose `renew`); for SimpleFIN, a request for a new setup token (renewSimplefin).
 */
export async function startRenew(
  deps: LinkDeps,
  connectionId: string,
  origin: LinkOrigin = {},
): Promise<LinkStart> {
  const connection = await renewable(deps, connectionId);
  if (connection.provider === "simplefin")
    return {
      kind: "paste_token",
      message:
        "Make a new setup token at your SimpleFIN Bridge (New app connection) and paste it to renew this connection.",
    };
  const client = enableBankingClientOf(deps);
  const { bank, country } = bankOf(connection);
  await takeLinkAttempt(deps.db, deps.clock, connection.serviceAccountId);
  try {
    return await askBankConsent(deps, client, {
      connectionId,
      serviceAccountId: connection.serviceAccountId,
      bank,
      country,
      consentDays: renewConsentDays,
      purpose: "renew",
      origin,
    });
  } catch (error) {
    throw linkFailure(error, error instanceof Error ? error.message : String(error));
  }
}

/** Renews a SimpleFIN connection with a new setup token: the new access replaces the old. */
export async function renewSimplefin(
  deps: LinkDeps,
  connectionId: string,
  setupToken: string,
): Promise<LinkResult> {
  const connection = await renewable(deps, connectionId);
  if (connection.provider !== "simplefin")
    throw new ApiError("invalid_request", "A setup token renews SimpleFIN connections only.");
  await takeLinkAttempt(deps.db, deps.clock, connection.serviceAccountId);
  return claimSimplefinAccess(deps, connectionId, setupToken, async (error) => {
    // A refused claim leaves the connection as it was (its old access, if any, still stored).
    throw linkFailure(error, error instanceof Error ? error.message : String(error));
  });
}

/** Moves each matched account to the uid the new session reads it under, in `tx`. */
async function remapAccounts(tx: Db, connectionId: string, remaps: AccountRemap[]): Promise<void> {
  const { bankAccounts } = tx.t;
  const moved = remaps.filter((r) => r.fromExternalId !== r.toExternalId);
  // Two steps, so a uid the new session gives that an old account still holds never collides.
  for (const remap of moved)
    await tx
      .update(bankAccounts)
      .set({ externalId: `renewing:${remap.accountId}` })
      .where(
        and(eq(bankAccounts.id, remap.accountId), eq(bankAccounts.connectionId, connectionId)),
      );
  for (const remap of moved)
    await tx
      .update(bankAccounts)
      .set({ externalId: remap.toExternalId })
      .where(eq(bankAccounts.id, remap.accountId));
}

/** The bank's callback for a renewal (its state was proven and taken by completeLink). */
export async function completeRenewal(
  deps: LinkDeps,
  connectionId: string,
  input: { code?: string; error?: string },
): Promise<LinkResult> {
  const connection = await getConnection(deps.db, connectionId);
  // Declined at the bank: the connection keeps its status (and its old consent, if any).
  if (input.error || !input.code)
    return { connectionId, status: connection.status, declined: true };
  const client = enableBankingClientOf(deps);
  let session: Awaited<ReturnType<typeof client.createSession>>;
  try {
    session = await client.createSession(input.code);
  } catch (error) {
    throw linkFailure(error, error instanceof Error ? error.message : String(error));
  }
  const previous = bankOf(connection);
  const { bankAccounts } = deps.db.t;
  const stored = await deps.db
    .select({ id: bankAccounts.id, externalId: bankAccounts.externalId })
    .from(bankAccounts)
    .where(eq(bankAccounts.connectionId, connectionId));
  const remaps = matchRenewedAccounts(previous.accounts, stored, session.accounts);
  const box = providerSecretBox(deps.masterKey.bytes);
  await moveTo(deps, connectionId, linkedEbSnapshot(session), {
    before: (tx) => remapAccounts(tx, connectionId, remaps),
    set: {
      providerSecret: box.seal(session.sessionId),
      consentExpiresAt: session.validUntil,
      providerState: JSON.stringify({ ...previous, accounts: session.accounts }),
      // A new consent: its own warnings, a fresh failure count, no wait from the old one.
      consentWarned7dAt: null,
      consentWarned1dAt: null,
      consecutiveFailures: 0,
      nextPullAt: null,
      updatedAt: deps.clock.now(),
    },
  });
  if (connection.providerSecret) {
    // The old session is given up at the provider; one already ended there is no obstacle.
    try {
      await client.deleteSession(box.open(connection.providerSecret));
    } catch (error) {
      deps.log.warn("renew: the old Enable Banking session could not be ended", {
        connectionId,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
  deps.log.info("connection renewed", { connectionId, accountsMatched: remaps.length });
  return { connectionId, status: "linked", firstSync: await firstSync(deps, connectionId) };
}
