// Every read the /v1 API (and the portal) makes of bank data, with statements prepared once.
import type { Database } from "../../db/open.ts";
import { type AccountReads, createAccountReads } from "./accounts.ts";
import { type ConnectionReads, createConnectionReads } from "./connections.ts";
import { createTransactionReads, type TransactionReads } from "./transactions.ts";

export type BankReads = AccountReads & ConnectionReads & TransactionReads;

/** Create once per database (e.g. per app), not per request. */
export function createBankReads(database: Database): BankReads {
  const accounts = createAccountReads(database);
  return {
    ...accounts,
    ...createConnectionReads(database),
    ...createTransactionReads(database, accounts),
  };
}
