// Reads of bank accounts and balances for one service account (issue 3 "Resources"). Every query
// carries the owner in its WHERE clause: an id of another account simply is not found.
// Statements are prepared once per database (the factory), not looked up per request.
import type { Database } from "../../db/open.ts";
import { ApiError } from "../../http/errors.ts";
import { type Page, toPage } from "./page.ts";

export interface AccountView {
  account_id: string;
  connection_id: string;
  name: string;
  type: string;
  currency: string;
  iban: string | null;
  mask: string | null;
  institution: string;
}

export interface BalanceView {
  account_id: string;
  current: string;
  available: string | null;
  currency: string;
  as_of: string;
  fetched_at: string;
}

interface BalanceRow {
  current: string;
  available: string | null;
  currency: string;
  as_of: number;
  fetched_at: number;
}

export interface AccountReads {
  /** Accounts in id order, after `afterId` (keyset), at most `limit`. */
  listAccounts(
    serviceAccountId: string,
    page: { limit: number; afterId?: string },
  ): Page<AccountView>;
  getAccount(serviceAccountId: string, accountId: string): AccountView;
  /** Throws not_found unless the account exists and belongs to the service account. */
  requireOwnAccount(serviceAccountId: string, accountId: string): void;
  /** The latest balance. `fetched_at` renders exactly as in the account.balance.updated event. */
  getBalance(serviceAccountId: string, accountId: string): BalanceView;
}

export function accountNotFound(accountId: string): ApiError {
  return new ApiError("not_found", `No account ${accountId}.`);
}

const accountColumns = `id AS account_id, connection_id, name, type, currency, iban, mask, institution`;

export function createAccountReads(database: Database): AccountReads {
  const { sqlite } = database;
  const list = sqlite.prepare<AccountView, [string, string, number]>(
    `SELECT ${accountColumns} FROM bank_accounts
      WHERE service_account_id = ?1 AND id > ?2 ORDER BY id LIMIT ?3`,
  );
  const one = sqlite.prepare<AccountView, [string, string]>(
    `SELECT ${accountColumns} FROM bank_accounts WHERE id = ?1 AND service_account_id = ?2`,
  );
  const owned = sqlite.prepare<{ one: number }, [string, string]>(
    "SELECT 1 AS one FROM bank_accounts WHERE id = ?1 AND service_account_id = ?2",
  );
  const balance = sqlite.prepare<BalanceRow, [string]>(
    "SELECT current, available, currency, as_of, fetched_at FROM balances WHERE account_id = ?1",
  );
  const requireOwnAccount = (serviceAccountId: string, accountId: string) => {
    if (!owned.get(accountId, serviceAccountId)) throw accountNotFound(accountId);
  };
  // One read transaction: one snapshot for the ownership check and the balance.
  const readBalance = sqlite.transaction((serviceAccountId: string, accountId: string) => {
    requireOwnAccount(serviceAccountId, accountId);
    return balance.get(accountId);
  });
  return {
    listAccounts(serviceAccountId, page) {
      return toPage(list.all(serviceAccountId, page.afterId ?? "", page.limit + 1), page.limit);
    },
    getAccount(serviceAccountId, accountId) {
      const row = one.get(accountId, serviceAccountId);
      if (!row) throw accountNotFound(accountId);
      return row;
    },
    requireOwnAccount,
    getBalance(serviceAccountId, accountId) {
      const row = readBalance(serviceAccountId, accountId);
      if (!row) {
        throw new ApiError(
          "not_found",
          `No balance has been fetched for account ${accountId} yet; it appears after the account's first sync.`,
        );
      }
      return {
        account_id: accountId,
        current: row.current,
        available: row.available,
        currency: row.currency,
        as_of: new Date(row.as_of).toISOString(),
        fetched_at: new Date(row.fetched_at).toISOString(),
      };
    },
  };
}
