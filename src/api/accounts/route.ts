// GET /v1/accounts, /v1/accounts/{account_id}, /v1/accounts/{account_id}/balance.
import { createRoute } from "@hono/zod-openapi";
import { readRoute } from "../middleware/read-route.ts";
import { operationExamples } from "../shared/examples.ts";
import { idPageBody, idPageRequest } from "../shared/pagination.ts";
import { accountPathParams, noQuery, pageQuery } from "../shared/params.ts";
import { conditionalReadHeaders, itemResponses, listResponses } from "../shared/responses.ts";
import { getAccountExamples, getBalanceExamples, listAccountsExamples } from "./examples.ts";
import type { AccountReads } from "./read.ts";
import { accountListSchema, accountSchema, balanceSchema } from "./schema.ts";

const listRoute = createRoute({
  method: "get",
  path: "/accounts",
  operationId: "listAccounts",
  [operationExamples]: listAccountsExamples,
  tags: ["Accounts"],
  summary: "List accounts",
  description: "Every bank account of the key's service account, across all its connections.",
  request: { headers: conditionalReadHeaders, query: pageQuery },
  responses: listResponses(accountListSchema, "A page of accounts, in id order."),
});

const getRoute = createRoute({
  method: "get",
  path: "/accounts/{account_id}",
  operationId: "getAccount",
  [operationExamples]: getAccountExamples,
  tags: ["Accounts"],
  summary: "Get an account",
  description:
    "One bank account of the key's service account: its name, type, currency and identifiers. An id of another service account is 404, like an unknown one.",
  request: { headers: conditionalReadHeaders, query: noQuery, params: accountPathParams },
  responses: itemResponses(accountSchema, "The account."),
});

const balanceRoute = createRoute({
  method: "get",
  path: "/accounts/{account_id}/balance",
  operationId: "getBalance",
  [operationExamples]: getBalanceExamples,
  tags: ["Accounts"],
  summary: "Get an account's balance",
  description:
    "The latest balance the service fetched. `fetched_at` equals the `fetched_at` of the account.balance.updated event that announced it. 404 until the account's first sync brought a balance.",
  request: { headers: conditionalReadHeaders, query: noQuery, params: accountPathParams },
  responses: itemResponses(balanceSchema, "The latest balance."),
});

/** The accounts' reads, answered by the router and by the read lane (middleware/read-route.ts). */
export function accountReadRoutes(reads: AccountReads) {
  return [
    readRoute(listRoute, async ({ principal, query }) => {
      const page = await reads.listAccounts(
        principal.serviceAccountId,
        idPageRequest("accounts", query),
      );
      return { body: JSON.stringify(idPageBody("accounts", page, (a) => a.account_id)) };
    }),
    readRoute(getRoute, async ({ principal, param }) => ({
      body: JSON.stringify(await reads.getAccount(principal.serviceAccountId, param.account_id)),
    })),
    readRoute(balanceRoute, async ({ principal, param }) => ({
      body: JSON.stringify(await reads.getBalance(principal.serviceAccountId, param.account_id)),
    })),
  ];
}
