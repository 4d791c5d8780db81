// The tables of schema/sqlite.ts for the PostgreSQL engine: the same table, column and index
// names (test/db/schema-parity.test.ts fails when the two differ), and column types that give
// feature code the same JavaScript values: times are bigint milliseconds read as Date, flags are
// booleans, text compares byte by byte (COLLATE "C", as SQLite does), so both engines order
// rows and keyset pages the same way.
// Conventions: snake_case columns, camelCase properties; ids are UUID strings (v7: time-ordered,
// so creation order needs no rowid); timestamps are integer milliseconds since the epoch exposed
// as Date (rendered with toISOString() everywhere, so the same instant always gives the same
// string); money is a decimal string, never a float.
import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  customType,
  index,
  integer,
  pgTable,
  primaryKey,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import type {
  AccountStatus,
  AttemptOutcome,
  ConnectionStatus,
  DeliveryKind,
  DeliveryStatus,
  EndpointStatus,
  EventType,
  ProviderName,
  RecoveryStatus,
  SubscriptionStatus,
  SyncOutcome,
  TransactionStatus,
} from "./values.ts";

/** Text that compares byte by byte, as SQLite's BINARY collation does (ids, dates, keysets). */
const text = customType<{ data: string }>({ dataType: () => 'text COLLATE "C"' });
/** Integer milliseconds since the epoch, read as a Date (bigint: past 2038 and beyond int4). */
const ms = customType<{ data: Date; driverData: string | number }>({
  dataType: () => "bigint",
  toDriver: (value) => value.getTime(),
  fromDriver: (value) => new Date(Number(value)),
});
const flag = (name: string) => boolean(name);

/** A tenant: owns users, keys, connections, bank accounts and webhook endpoints. */
export const serviceAccounts = pgTable("service_accounts", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  status: text("status").$type<AccountStatus>().notNull().default("sandbox"),
  subscriptionStatus: text("subscription_status")
    .$type<SubscriptionStatus>()
    .notNull()
    .default("none"),
  paymentFailed: flag("payment_failed").notNull().default(false),
  disabled: flag("disabled").notNull().default(false),
  demo: flag("demo").notNull().default(false),
  connectEnabled: flag("connect_enabled").notNull().default(true),
  /**
   * Moves whenever the account's bank data (connections, accounts, balances, transactions)
   * changes, bumped by triggers in the same transaction (migrations): remembered /v1 answers are
   * valid only at the generation they were read at.
   */
  dataGeneration: bigint("data_generation", { mode: "number" }).notNull().default(0),
  createdAt: ms("created_at").notNull(),
  updatedAt: ms("updated_at").notNull(),
});

/** A person who signs in to the portal. Operators see every account's metadata. */
export const users = pgTable(
  "users",
  {
    id: text("id").primaryKey(),
    serviceAccountId: text("service_account_id")
      .notNull()
      .references(() => serviceAccounts.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    passwordHash: text("password_hash"),
    isOperator: flag("is_operator").notNull().default(false),
    mustChangePassword: flag("must_change_password").notNull().default(false),
    createdAt: ms("created_at").notNull(),
    lastLoginAt: ms("last_login_at"),
    // The quick start is shown until the user dismisses it.
    quickStartDismissedAt: ms("quick_start_dismissed_at"),
  },
  (t) => [
    uniqueIndex("users_email_unique").on(t.email),
    index("users_account_idx").on(t.serviceAccountId),
  ],
);

/** Portal sessions; only the SHA-256 of the cookie token is stored. */
export const sessions = pgTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    tokenHash: text("token_hash").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: ms("created_at").notNull(),
    lastSeenAt: ms("last_seen_at").notNull(),
    expiresAt: ms("expires_at").notNull(),
  },
  (t) => [uniqueIndex("sessions_token_hash_unique").on(t.tokenHash)],
);

/** API keys (spec 2, 3): only SHA-256 hex of the whole key is stored. */
export const apiKeys = pgTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    serviceAccountId: text("service_account_id")
      .notNull()
      .references(() => serviceAccounts.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    prefix: text("prefix").notNull(),
    keyHash: text("key_hash").notNull(),
    createdAt: ms("created_at").notNull(),
    lastUsedAt: ms("last_used_at"),
    revokedAt: ms("revoked_at"),
  },
  (t) => [
    uniqueIndex("api_keys_key_hash_unique").on(t.keyHash),
    index("api_keys_account_idx").on(t.serviceAccountId),
  ],
);

/** A link to one institution that carries bank accounts (spec 2 "Connection"). */
export const connections = pgTable(
  "connections",
  {
    id: text("id").primaryKey(),
    serviceAccountId: text("service_account_id")
      .notNull()
      .references(() => serviceAccounts.id, { onDelete: "cascade" }),
    provider: text("provider").$type<ProviderName>().notNull(),
    /** The provider's own id for this connection (import: the file's id; sandbox: generated). */
    externalId: text("external_id").notNull(),
    institution: text("institution").notNull(),
    status: text("status").$type<ConnectionStatus>().notNull(),
    error: text("error"),
    /** Provider-private state as JSON (e.g. the sandbox bank's seed and cursor). */
    providerState: text("provider_state").notNull().default("{}"),
    createdAt: ms("created_at").notNull(),
    updatedAt: ms("updated_at").notNull(),
    /** When the last successful sync fetched data; a failed sync leaves it unchanged. */
    lastSyncedAt: ms("last_synced_at"),
    /**
     * Sync lease (one sync of a connection at a time, across processes): the running sync's
     * run id and when its claim lapses, so a crashed process does not block the connection.
     */
    syncLeaseRunId: text("sync_lease_run_id"),
    syncLeaseExpiresAt: ms("sync_lease_expires_at"),
    /** Real banks: when the consent ends (Enable Banking's session valid_until). */
    consentExpiresAt: ms("consent_expires_at"),
    /**
     * Real banks: the provider secret (session id, access URL) sealed by the secret box
     * (src/crypto/secret-box.ts); never stored or shown in the clear.
     */
    providerSecret: text("provider_secret"),
    /** Failed syncs in a row (provider outages become `error` only after several). */
    consecutiveFailures: integer("consecutive_failures").notNull().default(0),
    /** Real banks: the request budget allows no pull before this time. */
    nextPullAt: ms("next_pull_at"),
    /**
     * The provider's latest message to the user and what the last sync skipped (docs/providers.md
     * "Notices"); null when there is nothing to say. Never a secret or a URL path.
     */
    notice: text("notice"),
    /**
     * When the owner was warned that the consent ends in 7 days / in 1 day (each warning once
     * per consent; a renewed consent clears both).
     */
    consentWarned7dAt: ms("consent_warned_7d_at"),
    consentWarned1dAt: ms("consent_warned_1d_at"),
  },
  (t) => [
    index("connections_account_idx").on(t.serviceAccountId),
    uniqueIndex("connections_external_unique").on(t.serviceAccountId, t.provider, t.externalId),
  ],
);

/**
 * A pending bank authorisation (the link flow): the `state` sent to the provider, stored
 * only as its SHA-256, bound to the account and its connection, used once, and expiring.
 */
export const linkStates = pgTable(
  "link_states",
  {
    stateHash: text("state_hash").primaryKey(),
    serviceAccountId: text("service_account_id")
      .notNull()
      .references(() => serviceAccounts.id, { onDelete: "cascade" }),
    connectionId: text("connection_id")
      .notNull()
      .references(() => connections.id, { onDelete: "cascade" }),
    createdAt: ms("created_at").notNull(),
    expiresAt: ms("expires_at").notNull(),
    /**
     * SHA-256 of the nonce in the starting browser's link cookie (portal); null when the link
     * was started from the CLI (the callback then asks the owner or an operator to sign in).
     */
    bindingHash: text("binding_hash"),
    /** `link` (a new connection) or `renew` (the same connection, a new consent). */
    purpose: text("purpose", { enum: ["link", "renew"] })
      .notNull()
      .default("link"),
  },
  (t) => [index("link_states_connection_idx").on(t.connectionId)],
);

/** A bank account carried by a connection. */
export const bankAccounts = pgTable(
  "bank_accounts",
  {
    id: text("id").primaryKey(),
    connectionId: text("connection_id")
      .notNull()
      .references(() => connections.id, { onDelete: "cascade" }),
    /** Denormalised owner, so every read is scoped with one indexed predicate. */
    serviceAccountId: text("service_account_id")
      .notNull()
      .references(() => serviceAccounts.id, { onDelete: "cascade" }),
    externalId: text("external_id").notNull(),
    name: text("name").notNull(),
    type: text("type").notNull(),
    currency: text("currency").notNull(),
    iban: text("iban"),
    mask: text("mask"),
    institution: text("institution").notNull(),
    createdAt: ms("created_at").notNull(),
    updatedAt: ms("updated_at").notNull(),
  },
  (t) => [
    index("bank_accounts_owner_idx").on(t.serviceAccountId, t.id),
    uniqueIndex("bank_accounts_external_unique").on(t.connectionId, t.externalId),
  ],
);

/** The latest known balance of a bank account; fetched_at matches account.balance.updated. */
export const balances = pgTable("balances", {
  accountId: text("account_id")
    .primaryKey()
    .references(() => bankAccounts.id, { onDelete: "cascade" }),
  current: text("current").notNull(),
  available: text("available"),
  currency: text("currency").notNull(),
  asOf: ms("as_of").notNull(),
  fetchedAt: ms("fetched_at").notNull(),
});

/**
 * Transactions. external_id is the sandbox bank's or import file's stable id; for real banks,
 * whose ids are hints, it is the row's own id and the provider ids are in
 * transaction_provider_ids (docs/providers.md "One transaction, one id").
 */
export const transactions = pgTable(
  "transactions",
  {
    id: text("id").notNull(),
    accountId: text("account_id")
      .notNull()
      .references(() => bankAccounts.id, { onDelete: "cascade" }),
    externalId: text("external_id").notNull(),
    status: text("status").$type<TransactionStatus>().notNull(),
    /** Signed decimal string, positive = money in. */
    amount: text("amount").notNull(),
    currency: text("currency").notNull(),
    /** YYYY-MM-DD; for pending rows the date the bank reports for them. */
    bookingDate: text("booking_date").notNull(),
    valueDate: text("value_date"),
    description: text("description").notNull(),
    counterpartyName: text("counterparty_name"),
    merchantName: text("merchant_name"),
    /** Set on a pending row once it has booked: the id of the booked transaction. */
    bookedTransactionId: text("booked_transaction_id"),
    /** Set on a booked row that replaced a pending one: the pending row's id. */
    pendingTransactionId: text("pending_transaction_id"),
    createdAt: ms("created_at").notNull(),
    updatedAt: ms("updated_at").notNull(),
    /**
     * Set on a pending row the provider stopped returning in a window it read again: the row is no
     * longer served (kept for the change feed).
     */
    removedAt: ms("removed_at"),
    /**
     * The row as the read API serves it (the TransactionView's JSON, in its field order), kept by
     * the database itself: a page is the concatenation of these, never rebuilt per request.
     */
    json: text("json")
      .notNull()
      .generatedAlwaysAs(
        sql`'{"transaction_id":' || coalesce(svc_json_text("id"), 'null') ||
          ',"account_id":' || coalesce(svc_json_text("account_id"), 'null') ||
          ',"status":' || coalesce(svc_json_text("status"), 'null') ||
          ',"amount":' || coalesce(svc_json_text("amount"), 'null') ||
          ',"currency":' || coalesce(svc_json_text("currency"), 'null') ||
          ',"booking_date":' || coalesce(svc_json_text("booking_date"), 'null') ||
          ',"value_date":' || coalesce(svc_json_text("value_date"), 'null') ||
          ',"description":' || coalesce(svc_json_text("description"), 'null') ||
          ',"counterparty_name":' || coalesce(svc_json_text("counterparty_name"), 'null') ||
          ',"merchant_name":' || coalesce(svc_json_text("merchant_name"), 'null') ||
          ',"pending_transaction_id":' || coalesce(svc_json_text("pending_transaction_id"), 'null') ||
          ',"booked_transaction_id":' || coalesce(svc_json_text("booked_transaction_id"), 'null') || '}'`,
      ),
  },
  (t) => [
    // Keyset pages of one account read this key in order, newest first; on SQLite the table is
    // stored in it (WITHOUT ROWID, in the migration), so a page is one range of the b-tree.
    primaryKey({ name: "transactions_pkey", columns: [t.accountId, t.bookingDate, t.id] }),
    uniqueIndex("transactions_id_unique").on(t.id),
    uniqueIndex("transactions_external_unique").on(t.accountId, t.externalId),
  ],
);

/**
 * Every provider id a transaction was seen under (docs/providers.md "One transaction, one id"):
 * real banks renumber and reuse their ids, so one id may name several transactions over time and
 * one transaction may carry several ids.
 */
export const transactionProviderIds = pgTable(
  "transaction_provider_ids",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => bankAccounts.id, { onDelete: "cascade" }),
    providerId: text("provider_id").notNull(),
    transactionId: text("transaction_id").notNull(),
    firstSeenAt: ms("first_seen_at").notNull(),
    lastSeenAt: ms("last_seen_at").notNull(),
  },
  (t) => [
    primaryKey({
      name: "transaction_provider_ids_pkey",
      columns: [t.accountId, t.providerId, t.transactionId],
    }),
    index("transaction_provider_ids_transaction_idx").on(t.transactionId),
  ],
);

/**
 * The transactions change feed (src/api/transaction-changes/read.ts): one row each time a
 * transaction's served state or served JSON changed, written by triggers on `transactions` in the
 * same transaction as the change (migrations), so no writer can forget it. `seq` follows commit
 * order within an account: SQLite has one writer; on PostgreSQL the trigger takes the account's
 * feed lock before numbering, held until commit. Pruned by retention.
 */
export const transactionChanges = pgTable(
  "transaction_changes",
  {
    seq: bigint("seq", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    accountId: text("account_id").notNull(),
    transactionId: text("transaction_id").notNull(),
    /** Whether the transaction was served (GET …/transactions?include_pending=true) before. */
    wasServed: flag("was_served").notNull(),
    createdAt: ms("created_at").notNull(),
  },
  (t) => [
    index("transaction_changes_account_idx").on(t.accountId, t.seq),
    index("transaction_changes_created_idx").on(t.createdAt),
  ],
);

/** One run of one connection's sync, for the portal, metrics and non-overlap. */
export const syncRuns = pgTable(
  "sync_runs",
  {
    id: text("id").primaryKey(),
    connectionId: text("connection_id")
      .notNull()
      .references(() => connections.id, { onDelete: "cascade" }),
    trigger: text("trigger").notNull(),
    startedAt: ms("started_at").notNull(),
    finishedAt: ms("finished_at"),
    outcome: text("outcome").$type<SyncOutcome>().notNull(),
    error: text("error"),
    newTransactions: integer("new_transactions").notNull().default(0),
    eventsRaised: integer("events_raised").notNull().default(0),
  },
  (t) => [index("sync_runs_connection_idx").on(t.connectionId, t.startedAt)],
);

/**
 * Webhook endpoints (spec 2, 3). The signing secret is derived from the master key and
 * secret_salt (docs/security.md); only its SHA-256 is kept, so the database alone yields no secret.
 */
export const webhookEndpoints = pgTable(
  "webhook_endpoints",
  {
    id: text("id").primaryKey(),
    serviceAccountId: text("service_account_id")
      .notNull()
      .references(() => serviceAccounts.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    description: text("description"),
    secretSalt: text("secret_salt").notNull(),
    secretHash: text("secret_hash").notNull(),
    status: text("status").$type<EndpointStatus>().notNull().default("active"),
    verifiedAt: ms("verified_at"),
    /** Consecutive failed delivery attempts across all of this endpoint's events. */
    failureCount: integer("failure_count").notNull().default(0),
    disabledReason: text("disabled_reason"),
    disabledAt: ms("disabled_at"),
    /**
     * The account event types this endpoint receives, as a JSON array; null means all of them.
     * webhook.verify and webhook.test are sent whatever it says.
     */
    eventTypes: text("event_types"),
    createdAt: ms("created_at").notNull(),
    updatedAt: ms("updated_at").notNull(),
  },
  (t) => [index("webhook_endpoints_account_idx").on(t.serviceAccountId)],
);

/** The one live verification code of an endpoint; a new send replaces it. */
export const verificationCodes = pgTable("verification_codes", {
  endpointId: text("endpoint_id")
    .primaryKey()
    .references(() => webhookEndpoints.id, { onDelete: "cascade" }),
  codeHash: text("code_hash").notNull(),
  attemptsUsed: integer("attempts_used").notNull().default(0),
  createdAt: ms("created_at").notNull(),
  expiresAt: ms("expires_at").notNull(),
});

/** Events with the exact canonical JSON bytes that are signed and sent (spec 2, 6). */
export const events = pgTable(
  "events",
  {
    id: text("id").primaryKey(),
    serviceAccountId: text("service_account_id")
      .notNull()
      .references(() => serviceAccounts.id, { onDelete: "cascade" }),
    type: text("type").$type<EventType>().notNull(),
    body: text("body").notNull(),
    createdAt: ms("created_at").notNull(),
  },
  (t) => [
    index("events_account_idx").on(t.serviceAccountId, t.createdAt),
    // The daily retention job deletes by age across all accounts.
    index("events_created_idx").on(t.createdAt),
  ],
);

/**
 * One event to one endpoint. Pending rows are claimed by the dispatcher with a lease
 * (lease_expires_at); a crash leaves the lease to expire and the row is sent again.
 */
export const deliveries = pgTable(
  "deliveries",
  {
    id: text("id").primaryKey(),
    eventId: text("event_id")
      .notNull()
      .references(() => events.id, { onDelete: "cascade" }),
    endpointId: text("endpoint_id")
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    kind: text("kind").$type<DeliveryKind>().notNull().default("event"),
    status: text("status").$type<DeliveryStatus>().notNull().default("pending"),
    attemptCount: integer("attempt_count").notNull().default(0),
    nextAttemptAt: ms("next_attempt_at"),
    leaseExpiresAt: ms("lease_expires_at"),
    /** The claim that holds the lease (fencing: only its outcome is recorded). */
    claimToken: text("claim_token"),
    /**
     * The process (service_processes.id) whose claim holds the lease: once that process is known
     * to be gone, another takes the row over at once instead of waiting for the lease to end.
     */
    leaseHolder: text("lease_holder"),
    /** A resend asked for by the owner or operator, not raised by the data. */
    manual: flag("manual").notNull().default(false),
    /** The recovery that queued this delivery (null for every other delivery). */
    recoveryId: text("recovery_id"),
    lastStatusCode: integer("last_status_code"),
    lastError: text("last_error"),
    createdAt: ms("created_at").notNull(),
    completedAt: ms("completed_at"),
  },
  (t) => [
    index("deliveries_due_idx").on(t.status, t.nextAttemptAt),
    index("deliveries_endpoint_idx").on(t.endpointId, t.createdAt),
    index("deliveries_event_idx").on(t.eventId),
    // Only the deliveries a recovery queued: every other row's NULL would cost each insert a page.
    index("deliveries_recovery_idx").on(t.recoveryId).where(sql`recovery_id IS NOT NULL`),
  ],
);

/**
 * A recovery of an endpoint's failed deliveries (src/webhooks/delivery-log/recovery.ts): walks
 * the account's events of [since, until] in creation order from its cursor, a paced step at a
 * time; at most one runs per endpoint (the partial unique index).
 */
export const endpointRecoveries = pgTable(
  "endpoint_recoveries",
  {
    id: text("id").primaryKey(),
    endpointId: text("endpoint_id")
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    serviceAccountId: text("service_account_id")
      .notNull()
      .references(() => serviceAccounts.id, { onDelete: "cascade" }),
    since: ms("since").notNull(),
    until: ms("until").notNull(),
    status: text("status").$type<RecoveryStatus>().notNull().default("running"),
    /** Events of the window whose delivery had failed for good when the recovery started. */
    total: integer("total").notNull(),
    /** Events re-sent so far (a manual delivery queued for each). */
    sent: integer("sent").notNull().default(0),
    /** Events of the window never sent to the endpoint (paused, disabled, unverified). */
    unsent: integer("unsent").notNull().default(0),
    /** The last event handled, in (created_at, id) order; null before the first step. */
    cursorCreatedAt: ms("cursor_created_at"),
    cursorEventId: text("cursor_event_id"),
    /** When the next paced step is due (taken by a conditional UPDATE: once per cluster). */
    nextStepAt: ms("next_step_at"),
    stopReason: text("stop_reason"),
    createdAt: ms("created_at").notNull(),
    updatedAt: ms("updated_at").notNull(),
    finishedAt: ms("finished_at"),
  },
  (t) => [
    uniqueIndex("endpoint_recoveries_running_idx").on(t.endpointId).where(sql`status = 'running'`),
    index("endpoint_recoveries_account_idx").on(t.serviceAccountId, t.createdAt),
    index("endpoint_recoveries_due_idx").on(t.status, t.nextStepAt),
  ],
);

/** Every attempt, for the delivery log (time, status code or error class, duration). */
export const deliveryAttempts = pgTable(
  "delivery_attempts",
  {
    id: text("id").primaryKey(),
    deliveryId: text("delivery_id")
      .notNull()
      .references(() => deliveries.id, { onDelete: "cascade" }),
    attemptNumber: integer("attempt_number").notNull(),
    startedAt: ms("started_at").notNull(),
    durationMs: integer("duration_ms").notNull(),
    outcome: text("outcome").$type<AttemptOutcome>().notNull(),
    statusCode: integer("status_code"),
    /** e.g. timeout, tls, connect, dns, redirect, http_status, blocked_address. */
    errorClass: text("error_class"),
    errorMessage: text("error_message"),
    /**
     * The Svc-Webhook-Signature header this attempt sent, so the portal shows what went out
     * even after a rotation; null when no request left (DNS,
     * blocked address) and for webhook.verify, whose signature covers the unmasked code.
     * Its timestamp is floor(started_at / 1000) s, as webhooks/delivery/signing.ts sets it.
     */
    signature: text("signature"),
  },
  (t) => [index("delivery_attempts_delivery_idx").on(t.deliveryId, t.attemptNumber)],
);

/** Fixed-window counters for limits that must survive a restart (spec 8). */
export const rateLimitCounters = pgTable(
  "rate_limit_counters",
  {
    key: text("key").notNull(),
    windowStart: ms("window_start").notNull(),
    count: integer("count").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.key, t.windowStart] })],
);

/**
 * Sliding-window limits (spec 8, src/limits/sliding-window.ts): one row per counted action, kept
 * while it is inside its window; refused actions leave no row.
 */
export const rateLimitLog = pgTable(
  "rate_limit_log",
  {
    id: text("id").primaryKey(),
    key: text("key").notNull(),
    at: ms("at").notNull(),
  },
  (t) => [index("rate_limit_log_key_at_idx").on(t.key, t.at)],
);

/**
 * When each scheduled job last ran, for the whole cluster: an instance runs a tick only if it
 * moves `last_run_at` itself (src/scheduling/scheduled-runs.ts), so a tick runs once however many
 * instances share the database.
 */
export const scheduledRuns = pgTable("scheduled_runs", {
  name: text("name").primaryKey(),
  lastRunAt: ms("last_run_at").notNull(),
});

/** Every e-mail the service means to send; kept even without SMTP so operators can read it. */
export const mailOutbox = pgTable(
  "mail_outbox",
  {
    id: text("id").primaryKey(),
    serviceAccountId: text("service_account_id").references(() => serviceAccounts.id, {
      onDelete: "set null",
    }),
    toAddress: text("to_address").notNull(),
    subject: text("subject").notNull(),
    body: text("body").notNull(),
    createdAt: ms("created_at").notNull(),
    sentAt: ms("sent_at"),
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
    nextAttemptAt: ms("next_attempt_at"),
  },
  (t) => [index("mail_outbox_pending_idx").on(t.sentAt, t.nextAttemptAt)],
);

/**
 * The serving processes on this database (src/cluster/processes.ts): each registers at start and
 * beats every few seconds; a process whose liveness check fails (PostgreSQL: its session lock is
 * free; SQLite: its pid is gone) is removed by any other, with its claims and streams.
 */
export const serviceProcesses = pgTable("service_processes", {
  id: text("id").primaryKey(),
  host: text("host").notNull(),
  pid: integer("pid").notNull(),
  /** When the OS started that pid (Linux /proc starttime), so a reused pid is not taken for it. */
  pidStartedAt: text("pid_started_at"),
  startedAt: ms("started_at").notNull(),
  heartbeatAt: ms("heartbeat_at").notNull(),
});

/** Open /v1/events/stream connections, counted per account across the cluster (spec 8). */
export const eventStreams = pgTable(
  "event_streams",
  {
    id: text("id").primaryKey(),
    serviceAccountId: text("service_account_id")
      .notNull()
      .references(() => serviceAccounts.id, { onDelete: "cascade" }),
    processId: text("process_id")
      .notNull()
      .references(() => serviceProcesses.id, { onDelete: "cascade" }),
    openedAt: ms("opened_at").notNull(),
  },
  (t) => [index("event_streams_account_idx").on(t.serviceAccountId)],
);

/** Small key/value facts about this instance (e.g. when the first operator was created). */
export const instanceMeta = pgTable("instance_meta", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
  updatedAt: ms("updated_at").notNull(),
});
