// Reads of bank accounts and balances for one service account (issue 3 "Resources"). Every query
// carries the owner in its WHERE clause: an id of another account simply is not found.
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

const accountColumns = `id AS account_id, connection_id, name, type, currency, iban, mask, institution`;

/** Accounts in id order, after `afterId` (keyset), at most `limit`. */
export function listAccounts(
  database: Database,
  serviceAccountId: string,
  page: { limit: number; afterId?: string },
): Page<AccountView> {
  const rows = database.sqlite
    .query<AccountView, [string, string, number]>(
      `SELECT ${accountColumns} FROM bank_accounts
        WHERE service_account_id = ?1 AND id > ?2 ORDER BY id LIMIT ?3`,
    )
    .all(serviceAccountId, page.afterId ?? "", page.limit + 1);
  return toPage(rows, page.limit);
}

export function accountNotFound(accountId: string): ApiError {
  return new ApiError("not_found", `No account ${accountId}.`);
}

export function getAccount(
  database: Database,
  serviceAccountId: string,
  accountId: string,
): AccountView {
  const row = database.sqlite
    .query<AccountView, [string, string]>(
      `SELECT ${accountColumns} FROM bank_accounts WHERE id = ?1 AND service_account_id = ?2`,
    )
    .get(accountId, serviceAccountId);
  if (!row) throw accountNotFound(accountId);
  return row;
}

/** Throws not_found unless the account exists and belongs to the service account. */
export function requireOwnAccount(
  database: Database,
  serviceAccountId: string,
  accountId: string,
): void {
  const row = database.sqlite
    .query<{ one: number }, [string, string]>(
      "SELECT 1 AS one FROM bank_accounts WHERE id = ?1 AND service_account_id = ?2",
    )
    .get(accountId, serviceAccountId);
  if (!row) throw accountNotFound(accountId);
}

interface BalanceRow {
  current: string;
  available: string | null;
  currency: string;
  as_of: number;
  fetched_at: number;
}

/** The latest balance. `fetched_at` renders exactly as in the account.balance.updated event. */
export function getBalance(
  database: Database,
  serviceAccountId: string,
  accountId: string,
): BalanceView {
  requireOwnAccount(database, serviceAccountId, accountId);
  const row = database.sqlite
    .query<BalanceRow, [string]>(
      "SELECT current, available, currency, as_of, fetched_at FROM balances WHERE account_id = ?1",
    )
    .get(accountId);
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
}
