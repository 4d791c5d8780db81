// Documented responses shared by every /v1 route: the error envelope per status with the exact
// codes it can carry (spec 7), and the headers that come with them.
import { z } from "@hono/zod-openapi";
import type { ZodType } from "zod";
import type { ErrorCode } from "../../core/errors.ts";
import { requestIdHeader } from "../../core/errors.ts";

const requestIdDoc = {
  [requestIdHeader]: {
    description: "Id of this request; quote it when reporting a problem.",
    schema: { type: "string" as const },
  },
};

const rateLimitDocs = {
  "RateLimit-Limit": {
    description:
      "Requests allowed per service account per window, all its keys together (absent when the limit is off).",
    schema: { type: "integer" as const },
  },
  "RateLimit-Remaining": {
    description:
      "Requests the account has left in the current window (across the cluster, as far as the answering server knows).",
    schema: { type: "integer" as const },
  },
  "RateLimit-Reset": {
    description: "Seconds until the window resets.",
    schema: { type: "integer" as const },
  },
  "RateLimit-Policy": {
    description: "The policy, e.g. `600;w=60` (600 requests per 60 s).",
    schema: { type: "string" as const },
  },
};

const etagDoc = {
  ETag: {
    description:
      "Strong entity tag of this exact body (a quoted 128-bit fingerprint of its bytes; opaque). Send it back in `If-None-Match` to be answered 304 while the data is unchanged.",
    schema: { type: "string" as const },
  },
};

/** The conditional-read header every GET takes (middleware/etag.ts). */
export const conditionalReadHeaders = z.object({
  "If-None-Match": z
    .string()
    .optional()
    .openapi({
      param: { name: "If-None-Match", in: "header" },
      description:
        "One or more `ETag` values from earlier answers (comma-separated, `W/` prefixes ignored), or `*`. When one matches the current answer, the answer is 304 with no body. (No example: a reference renderer would paste it into every generated sample.)",
    }),
});

const notModifiedResponse = {
  304: {
    description:
      "Not modified: `If-None-Match` matched the current answer's `ETag`. No body; counts against the rate limit like any read.",
    headers: { ...etagDoc, ...requestIdDoc, ...rateLimitDocs },
  },
} as const;

function errorEnvelope<const C extends readonly [ErrorCode, ...ErrorCode[]]>(codes: C) {
  return z
    .object({
      error: z
        .object({
          code: z.enum(codes).openapi({ description: "Machine-readable: branch on this." }),
          message: z.string().openapi({ description: "For people; may change." }),
        })
        .strict(),
    })
    .strict();
}

function errorDoc<const C extends readonly [ErrorCode, ...ErrorCode[]]>(
  codes: C,
  description: string,
  headers = {},
) {
  return {
    description,
    headers: { ...requestIdDoc, ...headers },
    content: { "application/json": { schema: errorEnvelope(codes) } },
  };
}

/** Responses every authenticated route can give. */
export const authErrorResponses = {
  401: errorDoc(
    ["not_authenticated", "invalid_api_key", "user_inactive"],
    "`not_authenticated`: no Authorization header. `invalid_api_key`: not `Bearer <key>`, or the key is malformed, unknown or revoked. `user_inactive`: the account owning the key is disabled.",
    {
      "WWW-Authenticate": {
        description: "Always `Bearer ...`.",
        schema: { type: "string" as const },
      },
    },
  ),
  403: errorDoc(
    ["demo_account", "connect_not_available", "subscription_lapsed"],
    "`demo_account`: demo accounts cannot use the API. `connect_not_available`: the bank-data feature is off for this account. `subscription_lapsed`: the key is valid but the account is not entitled (subscription lapsed or a renewal payment failed); the key is not revoked and works again once the account is paid.",
  ),
  429: errorDoc(
    ["rate_limited"],
    "`rate_limited`: too many requests with this key in the current window.",
    {
      "Retry-After": {
        description: "Seconds to wait before retrying.",
        schema: { type: "integer" as const },
      },
      ...rateLimitDocs,
    },
  ),
  500: errorDoc(
    ["internal_error"],
    "`internal_error`: something failed on the service's side; the message carries the request id.",
  ),
} as const;

export const invalidRequestResponse = {
  400: errorDoc(
    ["invalid_request"],
    "`invalid_request`: a parameter is missing, malformed or out of range; the message names it.",
  ),
} as const;

/** The change feed's 400s: a bad parameter, or a cursor past retention. */
export const changesRequestResponse = {
  400: errorDoc(
    ["invalid_request", "cursor_expired"],
    "`invalid_request`: a parameter is missing, malformed or out of range, or the cursor belongs to another account or list. `cursor_expired`: the cursor is older than the retention period; start again without a cursor.",
  ),
} as const;

export const notFoundResponse = {
  404: errorDoc(
    ["not_found"],
    "`not_found`: no such resource in the key's account (resources of other accounts are never revealed).",
  ),
} as const;

export function okResponse<T extends ZodType>(schema: T, description: string) {
  return {
    200: {
      description,
      headers: { ...etagDoc, ...requestIdDoc, ...rateLimitDocs },
      content: { "application/json": { schema } },
    },
    ...notModifiedResponse,
  };
}

/** A list route: 200 with the page, bad parameters, authentication. */
export function listResponses<T extends ZodType>(schema: T, description: string) {
  return { ...okResponse(schema, description), ...invalidRequestResponse, ...authErrorResponses };
}

/** A route addressing one resource by id: a list route's responses plus 404. */
export function itemResponses<T extends ZodType>(schema: T, description: string) {
  return { ...listResponses(schema, description), ...notFoundResponse };
}
