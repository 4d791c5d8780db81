// One read of a connection through the provider interface: its status and, when it is linked,
// every account with its balance and its transactions since `since`. What the provider hands
// back is checked against our model before anything is written, so a provider bug fails the
// sync with a message naming the record instead of storing bad rows.
import type { z } from "zod";
import {
  type AccountSnapshot,
  accountRecordSchema,
  balanceRecordSchema,
  type ConnectionSnapshot,
  parseProviderData,
  transactionRecordSchema,
} from "./model.ts";
import { normalizeAmount } from "./money.ts";
import type { BankProvider, ProviderConnection } from "./provider.ts";

export class ProviderDataError extends Error {
  override name = "ProviderDataError";
}

function check<T extends z.ZodType>(schema: T, value: unknown, what: string): z.infer<T> {
  return parseProviderData(
    schema,
    value,
    (problem) => new ProviderDataError(`provider returned an invalid ${what}: ${problem}`),
  );
}

async function readAccount(
  provider: BankProvider,
  connection: ProviderConnection,
  accountValue: unknown,
  since: string | undefined,
): Promise<AccountSnapshot> {
  const account = check(accountRecordSchema, accountValue, "account");
  const [balanceValue, transactionValues] = await Promise.all([
    provider.fetchBalance(connection, account.externalId),
    provider.fetchTransactions(connection, account.externalId, since),
  ]);
  const balance = check(balanceRecordSchema, balanceValue, `balance of ${account.externalId}`);
  const seen = new Set<string>();
  const transactions = transactionValues.map((value) => {
    const record = check(transactionRecordSchema, value, `transaction of ${account.externalId}`);
    if (seen.has(record.externalId)) {
      throw new ProviderDataError(
        `provider returned transaction ${record.externalId} of ${account.externalId} twice`,
      );
    }
    seen.add(record.externalId);
    return { ...record, amount: normalizeAmount(record.amount, record.currency) };
  });
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
  const listed = await provider.listAccounts(connection);
  const ids = new Set<string>();
  const accounts: AccountSnapshot[] = [];
  for (const value of listed) {
    const snapshot = await readAccount(provider, connection, value, since);
    if (ids.has(snapshot.account.externalId))
      throw new ProviderDataError(`provider listed account ${snapshot.account.externalId} twice`);
    ids.add(snapshot.account.externalId);
    accounts.push(snapshot);
  }
  return { status, accounts };
}
