// Who may use the read API (spec 3 "Entitlement", spec 7 errors; the order: docs/contract.md
// "Errors"). A pure rule over the account's operator-set fields, shared by the /v1 auth middleware
// and the portal overview ("what an API call would get now, and why").
import type { AccountStatus, SubscriptionStatus } from "../db/schema.ts";

/** The service-account fields that decide API access (a ServiceAccountView extends them). */
export interface AccessFacts {
  status: AccountStatus;
  subscriptionStatus: SubscriptionStatus;
  paymentFailed: boolean;
  disabled: boolean;
  demo: boolean;
  connectEnabled: boolean;
}

/** Exactly the access facts of a row or view that carries them (and more). */
export function accessFactsOf(source: AccessFacts): AccessFacts {
  return {
    status: source.status,
    subscriptionStatus: source.subscriptionStatus,
    paymentFailed: source.paymentFailed,
    disabled: source.disabled,
    demo: source.demo,
    connectEnabled: source.connectEnabled,
  };
}

export type AccessRefusalCode =
  | "user_inactive"
  | "demo_account"
  | "connect_not_available"
  | "subscription_lapsed";

export type AccessDecision =
  | { allowed: true }
  | { allowed: false; code: AccessRefusalCode; message: string };

const entitledStatuses: readonly AccountStatus[] = ["sandbox", "active"];
const entitledSubscriptions: readonly SubscriptionStatus[] = ["active", "trialing"];

/** Spec 3: entitled when the account is sandbox/active, or the subscription is active/trialing. */
export function isEntitled(facts: Pick<AccessFacts, "status" | "subscriptionStatus">): boolean {
  return (
    entitledStatuses.includes(facts.status) ||
    entitledSubscriptions.includes(facts.subscriptionStatus)
  );
}

/**
 * The decision for a request whose key is valid, checked in this order (API guide, Errors):
 * disabled -> demo -> connect off -> not entitled. A refusal never revokes the key, so access
 * resumes by itself once the account is put right (spec 3).
 */
export function decideApiAccess(facts: AccessFacts): AccessDecision {
  if (facts.disabled) {
    return {
      allowed: false,
      code: "user_inactive",
      message:
        "The account that owns this API key is disabled. Contact the operator of this service to re-enable it.",
    };
  }
  if (facts.demo) {
    return {
      allowed: false,
      code: "demo_account",
      message: "Demo accounts cannot use the API. Use a sandbox or live account's key instead.",
    };
  }
  if (!facts.connectEnabled) {
    return {
      allowed: false,
      code: "connect_not_available",
      message:
        "The bank-data feature is not available for this account. Contact the operator of this service to enable it.",
    };
  }
  if (!isEntitled(facts)) {
    return {
      allowed: false,
      code: "subscription_lapsed",
      message: facts.paymentFailed
        ? "The renewal payment for this account's subscription failed. Update your payment details to restore API access; your API keys stay valid and work again as soon as the payment succeeds."
        : `This account's subscription is not active (subscription status: ${facts.subscriptionStatus}). Renew the subscription to restore API access; your API keys stay valid and work again once it is paid.`,
    };
  }
  return allowed;
}

const allowed: AccessDecision = { allowed: true };

const accessRefusalStatus = {
  user_inactive: 401,
  demo_account: 403,
  connect_not_available: 403,
  subscription_lapsed: 403,
} as const satisfies Record<AccessRefusalCode, number>;

export interface AccessDescription {
  /** Whether an API call with a valid key of this account is served now. */
  allowed: boolean;
  /** The HTTP status such a call gets (200 when served). */
  httpStatus: number;
  /** The error code when refused. */
  code?: AccessRefusalCode;
  /** One sentence: what an API call gets now. */
  summary: string;
  /** Why, in plain words. */
  reason: string;
}

/** For the portal overview: what an API call would get now, and why. */
export function describeApiAccess(facts: AccessFacts): AccessDescription {
  const decision = decideApiAccess(facts);
  if (!decision.allowed) {
    return {
      allowed: false,
      httpStatus: accessRefusalStatus[decision.code],
      code: decision.code,
      summary: `API calls are refused with ${accessRefusalStatus[decision.code]} ${decision.code}.`,
      reason: decision.message,
    };
  }
  const because = entitledStatuses.includes(facts.status)
    ? `the account status is ${facts.status}`
    : `the subscription is ${facts.subscriptionStatus}`;
  return {
    allowed: true,
    httpStatus: 200,
    summary: "API calls with a valid key are served.",
    reason: `The account is entitled because ${because}.`,
  };
}
