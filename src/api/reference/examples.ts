// Examples on every /v1 operation of the OpenAPI document: parameters, the 200 body
// and each error. Error examples are produced by the code that answers them (the same message
// functions and validators), never retyped, so the reference shows what the server really says
// (test/api/openapi-reference.test.ts compares them with real answers). `cursor` gets no example
// on purpose: renderers paste parameter examples into every generated request sample, and a
// made-up cursor there would be answered 400.
import type { z } from "@hono/zod-openapi";
import { type AccessFacts, decideApiAccess } from "../../accounts/entitlement.ts";
import { ApiError, internalErrorMessage } from "../../core/errors.ts";
import { accountNotFound, balanceNotFound } from "../accounts/read.ts";
import type { accountListSchema, accountSchema, balanceSchema } from "../accounts/schema.ts";
import { connectionNotFound } from "../connections/read.ts";
import type { connectionListSchema, connectionSchema } from "../connections/schema.ts";
import { eventPathParams, eventStreamQuery, eventsQuery } from "../events/query.ts";
import { eventNotFound } from "../events/read.ts";
import type { eventListSchema } from "../events/schema.ts";
import { parseLastEventId } from "../events/stream.ts";
import { apiKeyRefusalMessages, rateLimitedError } from "../middleware/auth.ts";
import { invalidCursor } from "../shared/cursor.ts";
import {
  accountPathParams,
  connectionPathParams,
  defaultPageLimit,
  pageQuery,
  validationHook,
} from "../shared/params.ts";
import { cursorExpired } from "../transaction-changes/cursor.ts";
import type { transactionChangesSchema } from "../transaction-changes/schema.ts";
import { maxWindowDays, resolveDateWindow } from "../transactions/date-window.ts";
import { transactionsQuery } from "../transactions/query.ts";
import type { transactionListSchema } from "../transactions/schema.ts";
import { signedWebhookExample } from "./openapi-webhooks.ts";

type Json = Record<string, unknown>;
type TransactionExample = z.infer<typeof transactionListSchema>["data"][number];

export const exampleIds = {
  account: "3f1c2a4e-8d9b-4c7e-9a51-0b6d2e7f4a10",
  savingsAccount: "6a0d3b9c-2e4f-4a1b-8c7d-5e6f7a8b9c0d",
  connection: "8e2d6b1a-5c4f-4a3e-b9d7-2f1e0c9a8b76",
  bookedTransaction: "1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d",
  pendingTransaction: "9d8c7b6a-5f4e-4d3c-a2b1-0f9e8d7c6b5a",
  replacedPending: "2c3d4e5f-6071-4b8c-9dae-1f2a3b4c5d6e",
} as const;

const bookedExample: TransactionExample = {
  transaction_id: exampleIds.bookedTransaction,
  account_id: exampleIds.account,
  status: "booked",
  amount: "-42.50",
  currency: "EUR",
  booking_date: "2026-01-14",
  value_date: "2026-01-14",
  description: "CARD PAYMENT CORNER SHOP",
  counterparty_name: null,
  merchant_name: "Corner Shop",
  pending_transaction_id: exampleIds.replacedPending,
  booked_transaction_id: null,
};

const salaryExample: TransactionExample = {
  transaction_id: "4e5f6071-8293-4a4b-8c5d-6e7f8091a2b3",
  account_id: exampleIds.account,
  status: "booked",
  amount: "2500.00",
  currency: "EUR",
  booking_date: "2026-01-13",
  value_date: "2026-01-13",
  description: "SALARY JANUARY",
  counterparty_name: "Employer Ltd",
  merchant_name: null,
  pending_transaction_id: null,
  booked_transaction_id: null,
};

/** A parameter's example by name; `cursor` deliberately has none (see above). */
const parameterExamples: Record<string, unknown> = {
  account_id: exampleIds.account,
  connection_id: exampleIds.connection,
  from: "2026-01-01",
  to: "2026-01-15",
  limit: defaultPageLimit,
  include_pending: true,
  type: "account.transactions.available",
  created_after: "2026-01-15T08:00:00Z",
  event_id: signedWebhookExample("account.transactions.available").envelope.id as string,
};

const account = {
  account_id: exampleIds.account,
  connection_id: exampleIds.connection,
  name: "Everyday current account",
  type: "current",
  currency: "EUR",
  iban: "DE89370400440532013000",
  mask: "3000",
  institution: "Sandbox Bank",
} satisfies z.infer<typeof accountSchema>;

const savings = {
  ...account,
  account_id: exampleIds.savingsAccount,
  name: "Savings",
  type: "savings",
  iban: null,
  mask: "7731",
} satisfies z.infer<typeof accountSchema>;

const connection = {
  connection_id: exampleIds.connection,
  status: "linked",
  account_ids: [exampleIds.account, exampleIds.savingsAccount],
  institution: "Sandbox Bank",
  created_at: "2026-01-02T08:30:00.000Z",
  last_synced_at: "2026-01-15T09:00:00.000Z",
  error: null,
  notice: null,
  consent_expires_at: "2026-04-02T08:30:00.000Z",
} satisfies z.infer<typeof connectionSchema>;

/** Events as /v1/events serves them: the envelopes the webhooks section shows, newest first. */
type EventExample = z.infer<typeof eventListSchema>["data"][number];
const balanceEvent = signedWebhookExample("account.balance.updated").envelope as EventExample;
const transactionsEvent = signedWebhookExample("account.transactions.available")
  .envelope as EventExample;
/** The event id the examples use (`event_id`, `getEvent`). */
export const exampleEventId = transactionsEvent.id;

const okExamples: Record<string, { summary: string; value: unknown }> = {
  listEvents: {
    summary: "The last page of events",
    value: { data: [transactionsEvent, balanceEvent], next_cursor: null } satisfies z.infer<
      typeof eventListSchema
    >,
  },
  getEvent: { summary: "An event envelope", value: transactionsEvent },
  listAccounts: {
    summary: "The last page of accounts",
    value: { data: [account, savings], next_cursor: null } satisfies z.infer<
      typeof accountListSchema
    >,
  },
  getAccount: { summary: "An account", value: account },
  getBalance: {
    summary: "A balance",
    value: {
      account_id: exampleIds.account,
      current: "1520.75",
      available: "1400.00",
      currency: "EUR",
      as_of: "2026-01-15T08:59:00.000Z",
      fetched_at: "2026-01-15T09:00:00.000Z",
    } satisfies z.infer<typeof balanceSchema>,
  },
  listTransactions: {
    summary: "A page with a pending and a booked transaction",
    value: {
      data: [
        {
          transaction_id: exampleIds.pendingTransaction,
          account_id: exampleIds.account,
          status: "pending",
          amount: "-12.99",
          currency: "EUR",
          booking_date: "2026-01-15",
          value_date: null,
          description: "CARD PAYMENT STREAMING SERVICE",
          counterparty_name: null,
          merchant_name: "Streaming Service",
          pending_transaction_id: null,
          booked_transaction_id: null,
        },
        bookedExample,
        salaryExample,
      ],
      next_cursor: null,
    } satisfies z.infer<typeof transactionListSchema>,
  },
  listTransactionChanges: {
    summary: "A pending card payment booked and a transfer's text was corrected",
    value: {
      added: [bookedExample],
      modified: [{ ...salaryExample, description: "SALARY JANUARY EMPLOYER LTD" }],
      removed: [{ transaction_id: exampleIds.replacedPending }],
      next_cursor: "eyJ2IjoxLCJrIjoiY2hhbmdlcyIsInAiOiJjIn0",
      has_more: false,
    } satisfies z.infer<typeof transactionChangesSchema>,
  },
  listConnections: {
    summary: "The last page of connections",
    value: { data: [connection], next_cursor: null } satisfies z.infer<typeof connectionListSchema>,
  },
  getConnection: { summary: "A connection", value: connection },
};

interface NamedExample {
  summary: string;
  value: { error: { code: string; message: string } };
}

function example(summary: string, error: ApiError): NamedExample {
  return { summary, value: error.toBody() };
}

/** The ApiError the real validator raises for `input` (400 invalid_request naming the parameter). */
function refusal(
  schema: z.ZodType,
  input: Record<string, string>,
  target: "query" | "param" = "query",
): ApiError {
  const result = schema.safeParse(input);
  try {
    validationHook({ target, success: result.success, error: result.error }, {} as never);
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error(`the example ${target} ${JSON.stringify(input)} is valid`);
}

function thrown(work: () => unknown): ApiError {
  try {
    work();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error("the example did not fail");
}

const entitled: AccessFacts = {
  status: "sandbox",
  subscriptionStatus: "none",
  paymentFailed: false,
  disabled: false,
  demo: false,
  connectEnabled: true,
};

function refusalOf(facts: Partial<AccessFacts>): ApiError {
  const decision = decideApiAccess({ ...entitled, ...facts });
  if (decision.allowed) throw new Error("the example facts are entitled");
  return new ApiError(decision.code, decision.message);
}

/** Errors every authenticated operation can answer, by status. */
function commonErrorExamples(rateLimitPerMinute: number): Record<string, Json> {
  const limit = rateLimitPerMinute > 0 ? rateLimitPerMinute : 600;
  return {
    "401": {
      not_authenticated: example(
        "No Authorization header",
        new ApiError("not_authenticated", apiKeyRefusalMessages.missing),
      ),
      invalid_api_key: example(
        "An unknown key",
        new ApiError("invalid_api_key", apiKeyRefusalMessages.unknown),
      ),
      not_bearer: example(
        "An Authorization header that is not `Bearer <key>`",
        new ApiError("invalid_api_key", apiKeyRefusalMessages.notBearer),
      ),
      malformed_api_key: example(
        "A key of the wrong shape",
        new ApiError("invalid_api_key", apiKeyRefusalMessages.malformed),
      ),
      revoked_api_key: example(
        "A revoked key",
        new ApiError(
          "invalid_api_key",
          apiKeyRefusalMessages.revoked(new Date("2026-01-10T12:00:00.000Z")),
        ),
      ),
      user_inactive: example("The account is disabled", refusalOf({ disabled: true })),
    },
    "403": {
      demo_account: example("A demo account's key", refusalOf({ demo: true })),
      connect_not_available: example(
        "Bank data is off for the account",
        refusalOf({ connectEnabled: false }),
      ),
      subscription_lapsed: example(
        "The subscription lapsed",
        refusalOf({ status: "lapsed", subscriptionStatus: "canceled" }),
      ),
    },
    "429": {
      rate_limited: example(
        "Over the account's limit",
        rateLimitedError({ allowed: false, limit, remaining: 0, resetSeconds: 42 }),
      ),
    },
    "500": {
      internal_error: example(
        "A failure on the service's side",
        new ApiError("internal_error", internalErrorMessage("req_Ab3dE9fG10000001")),
      ),
    },
  };
}

/** 400 and 404 examples that depend on the operation. */
function operationErrorExamples(
  operationId: string,
  takesLimit: boolean,
  retentionDays: number,
): Record<string, Json> {
  const badAccountId = {
    bad_id: example(
      "An id that is not a UUID",
      refusal(accountPathParams, { account_id: "acc_123" }, "param"),
    ),
  };
  const badLimit = {
    bad_limit: example("`limit` out of range", refusal(pageQuery, { limit: "0" })),
  };
  const unknownAccount = {
    not_found: example(
      "No such account in the key's service account",
      accountNotFound(exampleIds.account),
    ),
  };
  switch (operationId) {
    case "listAccounts":
    case "listConnections":
      return {
        "400": {
          ...badLimit,
          unknown_parameter: example(
            "A parameter the route does not take",
            refusal(pageQuery, { page: "2" }),
          ),
          bad_cursor: example(
            "A cursor that was not a next_cursor",
            invalidCursor("not a cursor of this API"),
          ),
        },
      };
    case "getAccount":
      return { "400": badAccountId, "404": unknownAccount };
    case "getBalance":
      return {
        "400": badAccountId,
        "404": {
          ...unknownAccount,
          no_balance_yet: example(
            "Before the account's first sync",
            balanceNotFound(exampleIds.account),
          ),
        },
      };
    case "getConnection":
      return {
        "400": {
          bad_id: example(
            "An id that is not a UUID",
            refusal(connectionPathParams, { connection_id: "con_123" }, "param"),
          ),
        },
        "404": {
          not_found: example(
            "No such connection in the key's service account",
            connectionNotFound(exampleIds.connection),
          ),
        },
      };
    case "listTransactions":
      return {
        "400": {
          ...badAccountId,
          bad_date: example(
            "A date that is not YYYY-MM-DD",
            refusal(transactionsQuery, { from: "15.01.2026" }),
          ),
          window_too_long: example(
            `A window of more than ${maxWindowDays} days`,
            thrown(() =>
              resolveDateWindow(new Date("2026-01-15T00:00:00Z"), {
                from: "2023-01-01",
                to: "2026-01-15",
              }),
            ),
          ),
          unknown_parameter: example(
            "A misspelt parameter",
            refusal(transactionsQuery, { include_pendng: "true" }),
          ),
          ...badLimit,
        },
        "404": unknownAccount,
      };
    case "listTransactionChanges":
      return {
        "400": {
          ...badAccountId,
          ...badLimit,
          unknown_parameter: example(
            "A parameter the route does not take",
            refusal(pageQuery, { page: "2" }),
          ),
          bad_cursor: example(
            "A cursor that was not a next_cursor (or another account's)",
            invalidCursor("not a cursor of this API"),
          ),
          cursor_expired: example(
            `A cursor older than the ${retentionDays}-day retention: start again without one`,
            cursorExpired(retentionDays),
          ),
        },
        "404": unknownAccount,
      };
    case "listEvents":
      return {
        "400": {
          ...badLimit,
          bad_type: example(
            "An event type that does not exist",
            refusal(eventsQuery, { type: "account.created" }),
          ),
          bad_created_after: example(
            "`created_after` without a time zone",
            refusal(eventsQuery, { created_after: "2026-01-15T09:00:00" }),
          ),
          bad_cursor: example(
            "A cursor that was not a next_cursor",
            invalidCursor("not a cursor of this API"),
          ),
        },
      };
    case "getEvent":
      return {
        "400": {
          bad_id: example(
            "An id that is not a UUID",
            refusal(eventPathParams, { event_id: "evt_123" }, "param"),
          ),
        },
        "404": {
          not_found: example(
            "No such event in the key's service account (or past retention)",
            eventNotFound(String(transactionsEvent.id)),
          ),
        },
      };
    case "streamEvents":
      return {
        "400": {
          bad_type: example(
            "An event type that does not exist",
            refusal(eventStreamQuery, { type: "account.created" }),
          ),
          bad_last_event_id: example(
            "A Last-Event-ID that is not an event id",
            thrown(() => parseLastEventId("42")),
          ),
        },
      };
    default:
      // A list operation documented elsewhere still gets the page-size example; its own cases
      // belong above (test/api/openapi-reference.test.ts asks for one per status).
      return takesLimit ? { "400": badLimit } : {};
  }
}

/**
 * Adds the examples to every operation of `document` (in place): parameter examples, the 200
 * body and one named example per error the status can carry.
 */
export function addOperationExamples(
  document: Json,
  rateLimitPerMinute: number,
  retentionDays: number,
): void {
  const common = commonErrorExamples(rateLimitPerMinute);
  const paths = (document.paths ?? {}) as Record<string, Record<string, Json>>;
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item)) {
      const operationId = String(operation.operationId);
      for (const parameter of (operation.parameters ?? []) as Json[]) {
        const name = String(parameter.name);
        if (name in parameterExamples) parameter.example = parameterExamples[name];
      }
      const byStatus: Record<string, Json> = {
        ...common,
        ...operationErrorExamples(
          operationId,
          ((operation.parameters ?? []) as Json[]).some((p) => p.name === "limit"),
          retentionDays,
        ),
      };
      const ok = okExamples[operationId];
      if (ok) byStatus["200"] = { [operationId]: ok };
      const responses = (operation.responses ?? {}) as Record<string, Json>;
      for (const [status, response] of Object.entries(responses)) {
        const examples = byStatus[status];
        const media = (response.content as Record<string, Json> | undefined)?.["application/json"];
        if (examples && media) media.examples = examples;
      }
    }
  }
}
