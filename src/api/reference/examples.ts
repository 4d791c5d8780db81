// Examples on every /v1 operation of the OpenAPI document: parameters, the 200 body and each
// error. Each route declares its own 200 body and the errors that depend on it
// (shared/examples.ts, in its resource's examples.ts); the errors every authenticated operation
// can answer are here.
// Error examples are produced by the code that answers them (the same message functions and
// validators), never retyped, so the reference shows what the server really says
// (test/api/openapi-reference.test.ts compares them with real answers). `cursor` gets no example
// on purpose: renderers paste parameter examples into every generated request sample, and a
// made-up cursor there would be answered 400.
import { type AccessFacts, decideApiAccess } from "../../accounts/entitlement.ts";
import { ApiError, internalErrorMessage } from "../../core/errors.ts";
import type { EventType } from "../../db/schema.ts";
import { apiKeyRefusalMessages, rateLimitedError } from "../middleware/auth.ts";
import {
  type ExampleContext,
  errorExample,
  exampleIds,
  type StatusExamples,
  takeOperationExamples,
} from "../shared/examples.ts";
import { defaultPageLimit } from "../shared/params.ts";
import { signedWebhookExample } from "./openapi-webhooks.ts";

type Json = Record<string, unknown>;

/** The examples' events: the webhooks section's, as /v1/events serves them. */
const exampleEvent = (type: EventType) => signedWebhookExample(type).envelope;

/** The event id the examples use (`event_id`, `getEvent`). */
export const exampleEventId = exampleEvent("account.transactions.available").id as string;

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
  event_id: exampleEventId,
};

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
function commonErrorExamples(rateLimitPerMinute: number): Record<string, StatusExamples> {
  const limit = rateLimitPerMinute > 0 ? rateLimitPerMinute : 600;
  return {
    "401": {
      not_authenticated: errorExample(
        "No Authorization header",
        new ApiError("not_authenticated", apiKeyRefusalMessages.missing),
      ),
      invalid_api_key: errorExample(
        "An unknown key",
        new ApiError("invalid_api_key", apiKeyRefusalMessages.unknown),
      ),
      not_bearer: errorExample(
        "An Authorization header that is not `Bearer <key>`",
        new ApiError("invalid_api_key", apiKeyRefusalMessages.notBearer),
      ),
      malformed_api_key: errorExample(
        "A key of the wrong shape",
        new ApiError("invalid_api_key", apiKeyRefusalMessages.malformed),
      ),
      revoked_api_key: errorExample(
        "A revoked key",
        new ApiError(
          "invalid_api_key",
          apiKeyRefusalMessages.revoked(new Date("2026-01-10T12:00:00.000Z")),
        ),
      ),
      user_inactive: errorExample("The account is disabled", refusalOf({ disabled: true })),
    },
    "403": {
      demo_account: errorExample("A demo account's key", refusalOf({ demo: true })),
      connect_not_available: errorExample(
        "Bank data is off for the account",
        refusalOf({ connectEnabled: false }),
      ),
      subscription_lapsed: errorExample(
        "The subscription lapsed",
        refusalOf({ status: "lapsed", subscriptionStatus: "canceled" }),
      ),
    },
    "429": {
      rate_limited: errorExample(
        "Over the account's limit",
        rateLimitedError({ allowed: false, limit, remaining: 0, resetSeconds: 42 }),
      ),
    },
    "500": {
      internal_error: errorExample(
        "A failure on the service's side",
        new ApiError("internal_error", internalErrorMessage("req_Ab3dE9fG10000001")),
      ),
    },
  };
}

/**
 * Adds the examples to every operation of `document` (in place): parameter examples, the 200
 * body and one named example per error the status can carry, as the operation's route declared
 * them (shared/examples.ts) over the errors every authenticated operation can answer.
 */
export function addOperationExamples(
  document: Json,
  rateLimitPerMinute: number,
  retentionDays: number,
): void {
  const common = commonErrorExamples(rateLimitPerMinute);
  const context: ExampleContext = { retentionDays, exampleEvent };
  const paths = (document.paths ?? {}) as Record<string, Record<string, Json>>;
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item)) {
      const operationId = String(operation.operationId);
      for (const parameter of (operation.parameters ?? []) as Json[]) {
        const name = String(parameter.name);
        if (name in parameterExamples) parameter.example = parameterExamples[name];
      }
      const declared = takeOperationExamples(operation)?.(context) ?? {};
      const byStatus: Record<string, Json> = { ...common, ...declared.errors };
      if (declared.ok) byStatus["200"] = { [operationId]: declared.ok };
      const responses = (operation.responses ?? {}) as Record<string, Json>;
      for (const [status, response] of Object.entries(responses)) {
        const examples = byStatus[status];
        const media = (response.content as Record<string, Json> | undefined)?.["application/json"];
        if (examples && media) media.examples = examples;
      }
    }
  }
}
