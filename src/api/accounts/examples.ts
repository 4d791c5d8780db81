// The examples of the accounts' operations (shared/examples.ts), declared on their routes.
import type { z } from "@hono/zod-openapi";
import {
  badAccountIdExamples,
  type DeclaredExamples,
  errorExample,
  exampleIds,
  idPageErrorExamples,
  type StatusExamples,
} from "../shared/examples.ts";
import { accountNotFound, balanceNotFound } from "./read.ts";
import type { accountListSchema, accountSchema, balanceSchema } from "./schema.ts";

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

/** The 404 of a route under /accounts/{account_id}. */
export function unknownAccountExamples(): StatusExamples {
  return {
    not_found: errorExample(
      "No such account in the key's service account",
      accountNotFound(exampleIds.account),
    ),
  };
}

export const listAccountsExamples: DeclaredExamples = () => ({
  ok: {
    summary: "The last page of accounts",
    value: { data: [account, savings], next_cursor: null } satisfies z.infer<
      typeof accountListSchema
    >,
  },
  errors: idPageErrorExamples(),
});

export const getAccountExamples: DeclaredExamples = () => ({
  ok: { summary: "An account", value: account },
  errors: { "400": badAccountIdExamples(), "404": unknownAccountExamples() },
});

export const getBalanceExamples: DeclaredExamples = () => ({
  ok: {
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
  errors: {
    "400": badAccountIdExamples(),
    "404": {
      ...unknownAccountExamples(),
      no_balance_yet: errorExample(
        "Before the account's first sync",
        balanceNotFound(exampleIds.account),
      ),
    },
  },
});
