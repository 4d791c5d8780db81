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

export const transactionStatuses = ["booked", "pending"] as const;
export type TransactionStatus = (typeof transactionStatuses)[number];

export const syncOutcomes = ["running", "succeeded", "failed"] as const;
export type SyncOutcome = (typeof syncOutcomes)[number];

export const endpointStatuses = ["active", "paused", "disabled"] as const;
export type EndpointStatus = (typeof endpointStatuses)[number];

export const deliveryKinds = ["event", "test", "verify"] as const;
export type DeliveryKind = (typeof deliveryKinds)[number];
export const deliveryStatuses = ["pending", "succeeded", "failed", "dropped", "cancelled"] as const;
export type DeliveryStatus = (typeof deliveryStatuses)[number];

/** A recovery of failed deliveries: running, done, cancelled by a person, or stopped (endpoint). */
export const recoveryStatuses = ["running", "completed", "cancelled", "stopped"] as const;
export type RecoveryStatus = (typeof recoveryStatuses)[number];

export const attemptOutcomes = ["succeeded", "failed"] as const;
export type AttemptOutcome = (typeof attemptOutcomes)[number];
