// Every read the /v1 API (and the portal) makes of bank data, with statements prepared once.
import type { Db } from "../db/store.ts";
import { type AccountReads, createAccountReads } from "./accounts/read.ts";
import { type ConnectionReads, createConnectionReads } from "./connections/read.ts";
import { createTransactionReads, type TransactionReads } from "./transactions/read.ts";

export type BankReads = AccountReads & ConnectionReads & TransactionReads;

/** Create once per database (e.g. per app), not per request. */
export function createBankReads(db: Db): BankReads {
  const accounts = createAccountReads(db);
  return {
    ...accounts,
    ...createConnectionReads(db),
    ...createTransactionReads(db, accounts),
  };
}
