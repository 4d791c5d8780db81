// One read of a connection through the provider interface: its status and, when it is linked,
// every account with its balance and its transactions since `since`. What the provider hands
// back is checked against our model before anything is written. For the sandbox bank a bad
// record fails the sync with a message naming it (a bug of ours); for real banks it is skipped
// with a named reason and told in the connection's notice (docs/providers.md "Skipped rows"),
// since one odd row of a bank must never stop a connection.
import type { z } from "zod";
import { providersWithUnstableIds } from "./identity.ts";
import {
  type AccountSnapshot,
  accountRecordSchema,
  balanceRecordSchema,
  type ConnectionSnapshot,
  parseProviderData,
  type TransactionRecord,
  transactionRecordSchema,
} from "./model.ts";
import { normalizeAmount } from "./money.ts";
import { composeNotice } from "./notice.ts";
import type { BankProvider, ProviderConnection } from "./provider.ts";
import { addSkip, mergeSkips, type SkipTally } from "./skips.ts";

class ProviderDataError extends Error {
  override name = "ProviderDataError";
}

function check<T extends z.ZodType>(schema: T, value: unknown, what: string): z.infer<T> {
  return parseProviderData(
    schema,
    value,
    (problem) => new ProviderDataError(`provider returned an invalid ${what}: ${problem}`),
  );
}

interface ReadRules {
  /** Real banks: skip what does not fit instead of failing; ids may repeat. */
  lenient: boolean;
  skipped: SkipTally;
}

function checkTransactions(
  values: TransactionRecord[],
  accountExternalId: string,
  rules: ReadRules,
): TransactionRecord[] {
  const seen = new Set<string>();
  const transactions: TransactionRecord[] = [];
  for (const value of values) {
    const what = `transaction of ${accountExternalId}`;
    if (rules.lenient && !transactionRecordSchema.safeParse(value).success) {
      addSkip(rules.skipped, "malformed_transaction");
      continue;
    }
    const record = check(transactionRecordSchema, value, what);
    if (!rules.lenient) {
      if (record.externalId === null)
        throw new ProviderDataError(`provider returned an invalid ${what}: externalId: missing`);
      if (seen.has(record.externalId)) {
        throw new ProviderDataError(
          `provider returned transaction ${record.externalId} of ${accountExternalId} twice`,
        );
      }
      seen.add(record.externalId);
    }
    transactions.push({ ...record, amount: normalizeAmount(record.amount, record.currency) });
  }
  return transactions;
}

async function readAccount(
  provider: BankProvider,
  connection: ProviderConnection,
  account: AccountSnapshot["account"],
  since: string | undefined,
  rules: ReadRules,
): Promise<AccountSnapshot> {
  const [balanceValue, transactionValues] = await Promise.all([
    provider.fetchBalance(connection, account.externalId),
    provider.fetchTransactions(connection, account.externalId, since),
  ]);
  const transactions = checkTransactions(transactionValues, account.externalId, rules);
  if (balanceValue === null) return { account, transactions };
  const balance = check(balanceRecordSchema, balanceValue, `balance of ${account.externalId}`);
  return {
    account,
    balance: {
      ...balance,
      current: normalizeAmount(balance.current, balance.currency),
      available:
        balance.available === null ? null : normalizeAmount(balance.available, balance.currency),
    },
    transactions,
  };
}

export async function readConnection(
  provider: BankProvider,
  connection: ProviderConnection,
  since: string | undefined,
): Promise<ConnectionSnapshot> {
  const { status, error } = await provider.connectionStatus(connection);
  if (status !== "linked") return { status, error: error ?? null };
  const rules: ReadRules = { lenient: providersWithUnstableIds.has(provider.name), skipped: {} };
  const listed = await provider.listAccounts(connection);
  const ids = new Set<string>();
  const accounts: AccountSnapshot[] = [];
  for (const value of listed) {
    if (rules.lenient && !accountRecordSchema.safeParse(value).success) {
      addSkip(rules.skipped, "malformed_account");
      continue;
    }
    const account = check(accountRecordSchema, value, "account");
    if (ids.has(account.externalId))
      throw new ProviderDataError(`provider listed account ${account.externalId} twice`);
    ids.add(account.externalId);
    accounts.push(await readAccount(provider, connection, account, since, rules));
  }
  if (!rules.lenient) return { status, accounts };
  const notes = provider.notes?.(connection) ?? { message: null, skipped: {} };
  mergeSkips(rules.skipped, notes.skipped);
  return {
    status,
    accounts,
    window: { from: since ?? null },
    notice: composeNotice(notes.message, rules.skipped),
    skipped: rules.skipped,
  };
}
