// The value sets of the schema's enumerated columns, shared by both engines' tables
// (schema/sqlite.ts, schema/postgres.ts) and by the code that reads them.

export const accountStatuses = ["sandbox", "active", "lapsed"] as const;
export type AccountStatus = (typeof accountStatuses)[number];
export const subscriptionStatuses = ["active", "trialing", "past_due", "canceled", "none"] as const;
export type SubscriptionStatus = (typeof subscriptionStatuses)[number];

export const connectionStatuses = [
  "linked",
  "awaiting_auth",
  "rejected",
  "suspended",
  "expired",
  "error",
  "initiated",
] as const;
export type ConnectionStatus = (typeof connectionStatuses)[number];
/**
 * The stored provider names. Each is described once in the provider catalog
 * (banking/providers/descriptors.ts), whose keys the compiler holds to this list; the list lives
 * here because the tables stand below the features that describe them.
 */
export const providerNames = ["sandbox", "import", "enable_banking", "simplefin"] as const;
export type ProviderName = (typeof providerNames)[number];
/** The providers that link a real bank (their catalog entries say `real: true`). */
export const realBankProviderNames = [
  "enable_banking",
  "simplefin",
] as const satisfies readonly ProviderName[];

export const transactionStatuses = ["booked", "pending"] as const;
export type TransactionStatus = (typeof transactionStatuses)[number];

export const syncOutcomes = ["running", "succeeded", "failed"] as const;
export type SyncOutcome = (typeof syncOutcomes)[number];

export const endpointStatuses = ["active", "paused", "disabled"] as const;
export type EndpointStatus = (typeof endpointStatuses)[number];

/**
 * The stored event types (spec 6). Each is described once in the event catalog
 * (webhooks/events/types.ts), whose keys the compiler holds to this list.
 */
export const eventTypes = [
  "account.transactions.available",
  "account.balance.updated",
  "connection.status.changed",
  "webhook.verify",
  "webhook.test",
] as const;
export type EventType = (typeof eventTypes)[number];

export const deliveryKinds = ["event", "test", "verify"] as const;
export type DeliveryKind = (typeof deliveryKinds)[number];
export const deliveryStatuses = ["pending", "succeeded", "failed", "dropped", "cancelled"] as const;
export type DeliveryStatus = (typeof deliveryStatuses)[number];

/** A recovery of failed deliveries: running, done, cancelled by a person, or stopped (endpoint). */
export const recoveryStatuses = ["running", "completed", "cancelled", "stopped"] as const;
export type RecoveryStatus = (typeof recoveryStatuses)[number];

export const attemptOutcomes = ["succeeded", "failed"] as const;
export type AttemptOutcome = (typeof attemptOutcomes)[number];
