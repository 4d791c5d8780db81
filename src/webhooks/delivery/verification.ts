// Endpoint verification (spec 2 "Verification code", 3, 8; docs/security.md): an 8-character code
// from an alphabet without look-alikes (no 0/O, 1/I/L), sent in a webhook.verify event. Only
// an HMAC of the code is stored; it lasts 1 hour and allows 5 attempts, then it is spent.
// A new send replaces the previous code.
import { createHmac } from "node:crypto";
import { eq } from "drizzle-orm";
import type { Clock } from "../../core/clock.ts";
import { ApiError } from "../../core/errors.ts";
import type { MasterKey } from "../../crypto/master-key.ts";
import { constantTimeEqual, randomFromAlphabet } from "../../crypto/tokens.ts";
import { type Db, first } from "../../db/store.ts";
import { consumeSend } from "../endpoints/limits.ts";
import {
  type EndpointRef,
  type EndpointView,
  endpointView,
  findEndpoint,
} from "../endpoints/records.ts";
import { canonicalJson } from "../events/canonical-json.ts";
import {
  normaliseVerificationCode,
  verificationCodeAlphabet,
  verificationCodeLength,
  verificationCodeProblem,
} from "../events/verification-code.ts";
import { buildEvent } from "../events/write.ts";
import type { WebhookContext } from "./context.ts";
import { type OneOffSendView, sendOnce } from "./one-off-send.ts";

export { verificationCodeAlphabet, verificationCodeLength };

const verificationCodeLifetimeMs = 60 * 60_000;
export const verificationAttempts = 5;

function codeHash(masterKey: MasterKey, endpointId: string, code: string): string {
  return createHmac("sha256", masterKey.bytes)
    .update(`webhook-verify:${endpointId}:${code}`)
    .digest("hex");
}

function refuseVerified(endpoint: { id: string; verifiedAt: Date | null }): void {
  if (endpoint.verifiedAt) {
    throw new ApiError("invalid_state", `Endpoint ${endpoint.id} is already verified.`);
  }
}

/**
 * Spec 3 "Send verification code": stores a new code (replacing any earlier one) and delivers
 * it once in a webhook.verify event. The code itself is returned to nobody: the owner reads it
 * from their receiver. The stored event body has the code masked.
 */
export async function sendVerificationCode(
  ctx: WebhookContext,
  ref: EndpointRef,
): Promise<OneOffSendView> {
  const endpoint = await findEndpoint(ctx.db, ref);
  refuseVerified(endpoint);
  await consumeSend(ctx.db, ctx.clock, endpoint.serviceAccountId);
  const code = randomFromAlphabet(verificationCodeAlphabet, verificationCodeLength);
  const now = ctx.clock.now();
  const row = {
    endpointId: endpoint.id,
    codeHash: codeHash(ctx.masterKey, endpoint.id, code),
    attemptsUsed: 0,
    createdAt: now,
    expiresAt: new Date(now.getTime() + verificationCodeLifetimeMs),
  };
  await ctx.db.write((tx) =>
    tx
      .insert(tx.t.verificationCodes)
      .values(row)
      .onConflictDoUpdate({ target: tx.t.verificationCodes.endpointId, set: row }),
  );
  const built = buildEvent("webhook.verify", { code, endpoint_id: endpoint.id }, now);
  const stored = canonicalJson({
    ...built.envelope,
    data: { ...built.envelope.data, code: "*".repeat(verificationCodeLength) },
  });
  return sendOnce(ctx, endpoint, built, stored);
}

type VerifyOutcome =
  | { kind: "verified"; endpoint: EndpointView }
  | { kind: "none" | "expired" | "spent" }
  | { kind: "wrong"; attemptsLeft: number };

/**
 * Spec 3: the correct code, within 1 hour and 5 attempts, makes the endpoint verified; account
 * events flow to it from then on (when it is also active). Every try of a well-formed code
 * counts, right or wrong. What was typed is normalised first (spaces, dashes, lower case), and
 * a code of the wrong length is refused without spending an attempt: the portal,
 * the CLI and any API caller are treated alike.
 */
export async function verifyEndpoint(
  ctx: { db: Db; clock: Clock; masterKey: MasterKey },
  ref: EndpointRef,
  code: string,
): Promise<EndpointView> {
  const entered = normaliseVerificationCode(code);
  const problem = verificationCodeProblem(entered);
  if (problem) throw new ApiError("invalid_request", `code: ${problem} (no attempt was used).`);
  // The attempt is committed before a wrong code is reported, so the outcome is decided inside
  // the transaction and thrown outside it.
  const outcome = await ctx.db.write(async (tx): Promise<VerifyOutcome> => {
    const { verificationCodes, webhookEndpoints } = tx.t;
    const endpoint = await findEndpoint(tx, ref);
    refuseVerified(endpoint);
    const pending = await first(
      tx.select().from(verificationCodes).where(eq(verificationCodes.endpointId, endpoint.id)),
    );
    const now = ctx.clock.now();
    if (!pending) return { kind: "none" };
    if (now.getTime() >= pending.expiresAt.getTime()) return { kind: "expired" };
    if (pending.attemptsUsed >= verificationAttempts) return { kind: "spent" };
    const attemptsUsed = pending.attemptsUsed + 1;
    if (constantTimeEqual(codeHash(ctx.masterKey, endpoint.id, entered), pending.codeHash)) {
      await tx.delete(verificationCodes).where(eq(verificationCodes.endpointId, endpoint.id));
      const [row] = await tx
        .update(webhookEndpoints)
        .set({ verifiedAt: now, updatedAt: now })
        .where(eq(webhookEndpoints.id, endpoint.id))
        .returning();
      // biome-ignore lint/style/noNonNullAssertion: the endpoint was found in this transaction
      return { kind: "verified", endpoint: endpointView(row!) };
    }
    await tx
      .update(verificationCodes)
      .set({ attemptsUsed })
      .where(eq(verificationCodes.endpointId, endpoint.id));
    return { kind: "wrong", attemptsLeft: verificationAttempts - attemptsUsed };
  });
  switch (outcome.kind) {
    case "verified":
      return outcome.endpoint;
    case "none":
      throw new ApiError(
        "code_expired",
        "No verification code is pending for this endpoint; send a new code.",
      );
    case "expired":
      throw new ApiError(
        "code_expired",
        "The verification code has expired (codes last 1 hour); send a new code.",
      );
    case "spent":
      throw new ApiError(
        "code_expired",
        `The verification code was tried ${verificationAttempts} times and is spent; send a new code.`,
      );
    case "wrong":
      throw new ApiError(
        "invalid_request",
        outcome.attemptsLeft > 0
          ? `The verification code is not correct; ${outcome.attemptsLeft} attempt${outcome.attemptsLeft === 1 ? "" : "s"} left.`
          : "The verification code is not correct and is now spent; send a new code.",
      );
  }
}

export interface PendingVerification {
  sentAt: string;
  expiresAt: string;
  attemptsLeft: number;
  /** False once the code has expired or its attempts are used up: a new code must be sent. */
  usable: boolean;
}

/**
 * The code waiting for an endpoint, for the portal's verify flow (attempts left and the expiry
 * countdown); null when none was sent or the endpoint is verified. Never the code itself.
 */
export async function pendingVerification(
  db: Db,
  clock: Clock,
  endpointId: string,
): Promise<PendingVerification | null> {
  const { verificationCodes } = db.t;
  const row = await first(
    db.select().from(verificationCodes).where(eq(verificationCodes.endpointId, endpointId)),
  );
  if (!row) return null;
  const attemptsLeft = Math.max(0, verificationAttempts - row.attemptsUsed);
  return {
    sentAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
    attemptsLeft,
    usable: attemptsLeft > 0 && clock.now().getTime() < row.expiresAt.getTime(),
  };
}
