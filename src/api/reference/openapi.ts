// The OpenAPI 3.1 document of /v1, generated from the zod route definitions.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { ApiEnv } from "../middleware/auth.ts";
import { defaultPageLimit, maxPageLimit } from "../shared/params.ts";
import { defaultWindowDays, maxWindowDays } from "../transactions/date-window.ts";
import { addCodeSamples } from "./code-samples.ts";
import { addOperationExamples } from "./examples.ts";
import { webhooksSection } from "./openapi-webhooks.ts";

export type OpenApiDocument = ReturnType<OpenAPIHono["getOpenAPI31Document"]>;

function overview(rateLimitPerMinute: number): string {
  return [
    "Read access to bank-account data: accounts, balances, transactions and the connections that carry them.",
    "",
    "**Authentication.** Send an API key on every request: `Authorization: Bearer svk_...`. Keys are created in the portal (or with `svc keys create`), shown once, and scoped to their service account's own data. A key authenticates; entitlement decides whether data is served.",
    "",
    '**Errors.** Every error is `{"error":{"code":"...","message":"..."}}` with a `Svc-Request-Id` header; branch on `code`. Authentication is checked in this order: no header, 401 `not_authenticated`; not `Bearer <key>` or a malformed, unknown or revoked key, 401 `invalid_api_key`; account disabled, 401 `user_inactive`; demo account, 403 `demo_account`; bank-data feature off, 403 `connect_not_available`; not entitled, 403 `subscription_lapsed` (the key is not revoked; access resumes once the account is paid). A bad parameter is 400 `invalid_request` naming it. An id outside the key\'s account, or an unknown path, is 404 `not_found`; a method the path does not take is 405 `method_not_allowed` with `Allow`.',
    "",
    `**Pagination.** Lists answer \`{"data":[...],"next_cursor":...}\`. Pass \`next_cursor\` as \`cursor\` for the next page until it is null; \`limit\` is 1 to ${maxPageLimit} (default ${defaultPageLimit}). Transactions take a booking-date window (\`from\`, \`to\`, inclusive; default the last ${defaultWindowDays} days; at most ${maxWindowDays} days).`,
    "",
    rateLimitPerMinute > 0
      ? `**Rate limit.** ${rateLimitPerMinute} requests per minute per service account, shared by all its keys and by every server of this service; \`RateLimit-*\` headers tell how many are left; beyond it 429 \`rate_limited\` with \`Retry-After\`.`
      : "**Rate limit.** Off on this instance.",
    "",
    "**Formats.** Amounts are signed decimal strings (positive = money in) with an ISO 4217 currency; timestamps are RFC 3339 in UTC; ids are UUIDs, accepted in either case and answered in lower case.",
  ].join("\n");
}

export function buildOpenApiDocument(
  app: OpenAPIHono<ApiEnv>,
  options: { baseUrl: string; rateLimitPerMinute: number; retentionDays: number },
): OpenApiDocument {
  app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    description: "An API key, `svk_` + 8 characters + `_` + 43 characters.",
  });
  const document = app.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: "Svc bank-data API",
      version: "v1",
      description: overview(options.rateLimitPerMinute),
      // A self-hosted service: whoever runs this instance answers for it and sets its terms,
      // and its portal (the base URL) is where customers reach them.
      contact: { name: "The operator of this instance", url: `${options.baseUrl}/` },
      license: {
        name: "Terms of service of this instance's operator",
        url: `${options.baseUrl}/`,
      },
    },
    servers: [{ url: `${options.baseUrl}/v1` }],
    security: [{ bearerAuth: [] }],
    tags: [
      { name: "Accounts", description: "Bank accounts and their balances." },
      { name: "Transactions", description: "An account's transactions." },
      { name: "Connections", description: "Links to institutions that carry accounts." },
      {
        name: "Events",
        description:
          "What happened on the account, as the signed envelopes webhooks carry: listed, read one by one, or followed as a Server-Sent Events stream.",
      },
      {
        name: "Webhooks",
        description:
          "Signed events the service POSTs to your HTTPS endpoint. Verify the signature over the raw body, answer 2xx within 10 seconds, de-duplicate on the event id, then read the detail from the API.",
      },
    ],
  });
  // Added after generation, beside the zod-generated paths (openapi-webhooks.ts, examples.ts,
  // code-samples.ts).
  const { webhooks, schemas } = webhooksSection();
  const components = (document.components ?? {}) as { schemas?: Record<string, unknown> };
  components.schemas = { ...components.schemas, ...schemas };
  const withWebhooks = { ...document, components, webhooks } as OpenApiDocument;
  const json = withWebhooks as unknown as Record<string, unknown>;
  addOperationExamples(json, options.rateLimitPerMinute, options.retentionDays);
  addCodeSamples(json);
  return withWebhooks;
}
