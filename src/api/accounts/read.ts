// Reads of bank accounts and balances for one service account. Every query
// carries the owner in its WHERE clause: an id of another account simply is not found.
// Queries are prepared once per database (the factory), not built per request.
import { and, asc, eq, gt, sql } from "drizzle-orm";
import { createBoundedCache } from "../../core/bounded-map.ts";
import { ApiError } from "../../core/errors.ts";
import type { Db } from "../../db/store.ts";
import { type Page, toPage } from "../shared/page.ts";

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

export interface AccountReads {
  /** Accounts in id order, after `afterId` (keyset), at most `limit`. */
  listAccounts(
    serviceAccountId: string,
    page: { limit: number; afterId?: string },
  ): Promise<Page<AccountView>>;
  getAccount(serviceAccountId: string, accountId: string): Promise<AccountView>;
  /**
   * Throws not_found unless the account exists and belongs to the service account. Given the
   * service account's data generation (as the key check read it), an account found is remembered
   * for that generation: every insert, update or delete of a bank account moves its owner's
   * generation in the same transaction (database triggers), so within one generation the answer
   * is what the query would give. An account not found is never remembered.
   */
  requireOwnAccount(
    serviceAccountId: string,
    accountId: string,
    dataGeneration?: number,
  ): Promise<void>;
  /** The latest balance. `fetched_at` renders exactly as in the account.balance.updated event. */
  getBalance(serviceAccountId: string, accountId: string): Promise<BalanceView>;
}

export function accountNotFound(accountId: string): ApiError {
  return new ApiError("not_found", `No account ${accountId}.`);
}

export function balanceNotFound(accountId: string): ApiError {
  return new ApiError(
    "not_found",
    `No balance has been fetched for account ${accountId} yet; it appears after the account's first sync.`,
  );
}

const p = (name: string) => sql.placeholder(name);

export function createAccountReads(db: Db): AccountReads {
  const { bankAccounts, balances } = db.t;
  const columns = {
    account_id: bankAccounts.id,
    connection_id: bankAccounts.connectionId,
    name: bankAccounts.name,
    type: bankAccounts.type,
    currency: bankAccounts.currency,
    iban: bankAccounts.iban,
    mask: bankAccounts.mask,
    institution: bankAccounts.institution,
  };
  const owner = eq(bankAccounts.serviceAccountId, p("owner"));
  const list = db
    .select(columns)
    .from(bankAccounts)
    .where(and(owner, gt(bankAccounts.id, p("after"))))
    .orderBy(asc(bankAccounts.id))
    .limit(p("limit"))
    .prepare("svc_accounts_list");
  const one = db
    .select(columns)
    .from(bankAccounts)
    .where(and(eq(bankAccounts.id, p("id")), owner))
    .prepare("svc_accounts_one");
  const owned = db
    .select({ id: bankAccounts.id })
    .from(bankAccounts)
    .where(and(eq(bankAccounts.id, p("id")), owner))
    .prepare("svc_accounts_owned");
  const balance = db
    .select({
      current: balances.current,
      available: balances.available,
      currency: balances.currency,
      asOf: balances.asOf,
      fetchedAt: balances.fetchedAt,
    })
    .from(balances)
    .innerJoin(bankAccounts, eq(bankAccounts.id, balances.accountId))
    .where(and(eq(balances.accountId, p("id")), owner))
    .prepare("svc_accounts_balance");
  // Accounts found, by owner, generation and account: a few bytes each. A page of an uncached
  // read spares the query (~8 µs of its CPU under load, BENCHMARKS.md).
  const ownedAccounts = createBoundedCache<true>({ maxEntries: 4_096 });
  const requireOwnAccount = async (
    serviceAccountId: string,
    accountId: string,
    dataGeneration?: number,
  ) => {
    const key =
      dataGeneration === undefined
        ? undefined
        : `${serviceAccountId} ${dataGeneration} ${accountId}`;
    if (key !== undefined && ownedAccounts.get(key)) return;
    const [row] = await owned.execute({ id: accountId, owner: serviceAccountId });
    if (!row) throw accountNotFound(accountId);
    if (key !== undefined) ownedAccounts.set(key, true);
  };
  return {
    async listAccounts(serviceAccountId, page) {
      const rows = await list.execute({
        owner: serviceAccountId,
        after: page.afterId ?? "",
        limit: page.limit + 1,
      });
      return toPage(rows, page.limit);
    },
    async getAccount(serviceAccountId, accountId) {
      const [row] = await one.execute({ id: accountId, owner: serviceAccountId });
      if (!row) throw accountNotFound(accountId);
      return row;
    },
    requireOwnAccount,
    async getBalance(serviceAccountId, accountId) {
      // One query: the balance only when the account is the caller's.
      const [row] = await balance.execute({ id: accountId, owner: serviceAccountId });
      if (!row) {
        await requireOwnAccount(serviceAccountId, accountId);
        throw balanceNotFound(accountId);
      }
      return {
        account_id: accountId,
        current: row.current,
        available: row.available,
        currency: row.currency,
        as_of: row.asOf.toISOString(),
        fetched_at: row.fetchedAt.toISOString(),
      };
    },
  };
}
