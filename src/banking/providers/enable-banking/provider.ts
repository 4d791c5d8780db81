// Enable Banking behind the provider interface. The session id is the provider secret (sealed
// in connections.provider_secret); the accounts the user shared are kept in provider_state at
// link time, so listing them costs no request. Each account's balance and transactions are the
// reads PSD2 rations (about 4 a day per account: budget.ts).
import { z } from "zod";
import type { SecretBox } from "../../../crypto/secret-box.ts";
import type { BankProvider, ProviderConnection } from "../../provider.ts";
import type { SkipTally } from "../../skips.ts";
import { enableBankingBudget } from "../budget.ts";
import { ProviderError } from "../errors.ts";
import type { EnableBankingClient } from "./client.ts";
import {
  ebAccountSchema,
  transformEbBalance,
  transformEbTransactions,
  usableEbAccounts,
} from "./transform.ts";

export const enableBankingStateSchema = z.object({
  bank: z.string(),
  country: z.string(),
  accounts: z.array(ebAccountSchema),
});
export type EnableBankingState = z.infer<typeof enableBankingStateSchema>;

function parseEnableBankingState(state: unknown): EnableBankingState {
  const parsed = enableBankingStateSchema.safeParse(state);
  if (!parsed.success)
    throw new ProviderError("bad_config", "the connection has no Enable Banking accounts recorded");
  return parsed.data;
}

export function openSecret(box: SecretBox, connection: ProviderConnection): string {
  if (!connection.sealedSecret)
    throw new ProviderError("bad_config", `connection ${connection.id} has no provider secret`);
  return box.open(connection.sealedSecret);
}

export function createEnableBankingProvider(deps: {
  client: EnableBankingClient;
  box: SecretBox;
  now: () => Date;
}): BankProvider {
  // What each read skipped (the sync passes one connection object to every call of a read).
  const skips = new WeakMap<ProviderConnection, SkipTally>();
  const skippedBy = (connection: ProviderConnection) => {
    const tally = skips.get(connection) ?? {};
    skips.set(connection, tally);
    return tally;
  };
  return {
    name: "enable_banking",
    // Two reads (balances, transactions) per account, 4 a day: a full pull every 12 hours.
    minIntervalMs: 12 * 60 * 60 * 1000,
    budget: enableBankingBudget,
    async connectionStatus(connection) {
      // Not authorised yet (the user has not come back from the bank): nothing to read.
      if (!connection.sealedSecret) return { status: connection.status };
      const session = await deps.client.getSession(openSecret(deps.box, connection));
      return { status: session.status };
    },
    async listAccounts(connection) {
      const { accounts } = parseEnableBankingState(connection.state);
      return usableEbAccounts(accounts, skippedBy(connection));
    },
    async fetchBalance(_connection, accountExternalId) {
      return transformEbBalance(await deps.client.balances(accountExternalId), deps.now());
    },
    async fetchTransactions(connection, accountExternalId, since) {
      const pages = await deps.client.transactions(accountExternalId, since);
      return transformEbTransactions(
        pages,
        deps.now().toISOString().slice(0, 10),
        skippedBy(connection),
      );
    },
    notes(connection) {
      return { message: null, skipped: skippedBy(connection) };
    },
  };
}
