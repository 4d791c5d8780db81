// The callback's one-time `state`: stored only as its SHA-256, bound to
// the account, its connection and its purpose (link or renew), used once, and it expires. It is
// also bound to its starter (docs/decisions.md "Bank links are bound to the browser"): a link
// started in the portal completes only for the browser holding its link cookie
// (portal/link-cookie.ts) or for the account's owner signed in; one started from the CLI, only for
// the owner or an operator signed in. Without that proof nothing is attached and the state stays
// usable for the one who may finish it.
import { eq } from "drizzle-orm";
import { ApiError } from "../core/errors.ts";
import { sha256Hex } from "../crypto/tokens.ts";
import type { Row } from "../db/schema.ts";
import { first } from "../db/store.ts";
import type { LinkDeps } from "./link-steps.ts";

/** What the browser at the callback proves about who it is. */
export interface LinkProof {
  /** The nonce of the browser's link cookie, when it sent one. */
  browserNonce?: string | undefined;
  /** The portal user signed in in this browser, when there is one. */
  signedIn?: { serviceAccountId: string; isOperator: boolean } | undefined;
}

export type LinkStateRow = Row<"linkStates">;

/** Whether the browser at the callback may finish the link the state names. */
function proves(row: LinkStateRow, proof: LinkProof): boolean {
  if (row.bindingHash && proof.browserNonce && sha256Hex(proof.browserNonce) === row.bindingHash)
    return true;
  if (proof.signedIn?.serviceAccountId === row.serviceAccountId) return true;
  // An operator may finish a link an operator started from the CLI, never one of the portal.
  return row.bindingHash === null && proof.signedIn?.isOperator === true;
}

/** The page's words when the browser cannot prove it may finish the link. */
function unprovenLinkMessage(startedInPortal: boolean): string {
  return startedInPortal
    ? "This bank link was started in another browser, so nothing was connected. Finish it in the browser where you started connecting the bank, or sign in to your account in this browser and press Continue. If you did not start connecting a bank, close this page."
    : "This bank link was started from the command line, so nothing was connected yet. Sign in to the account's portal in this browser as its owner or an operator, then press Continue. If you did not start connecting a bank, close this page.";
}

/**
 * Takes the callback's state: unexpired, proven by its starter, then used up. An unproven
 * attempt leaves it in place (and attaches nothing), so its starter can still finish.
 */
export async function takeState(
  deps: LinkDeps,
  state: string,
  proof: LinkProof,
): Promise<LinkStateRow> {
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
