// SimpleFIN behind the provider interface. The access URL is the provider secret (sealed). One
// GET {access}/accounts returns every account with its balance and transactions, so the read
// is fetched once per sync (cached on the connection object the sync passes to every call) and
// costs one request of the Bridge's ~24 a day.
import type { SecretBox } from "../../../crypto/secret-box.ts";
import type { BankProvider, ProviderConnection, ProviderNotes } from "../../provider.ts";
import type { SkipTally } from "../../skips.ts";
import { simplefinBudget } from "../budget.ts";
import { openSecret } from "../enable-banking/provider.ts";
import { ProviderError } from "../errors.ts";
import type { SimplefinClient } from "./client.ts";
import {
  errorsToProviderError,
  type SimplefinAccountSnapshot,
  simplefinMessages,
  transformAccountSet,
} from "./transform.ts";

/** How far back the first read reaches (the Bridge keeps about 90 days). */
const simplefinHistoryDays = 90;

export function createSimplefinProvider(deps: {
  client: SimplefinClient;
  box: SecretBox;
  now: () => Date;
}): BankProvider {
  const reads = new WeakMap<ProviderConnection, Promise<SimplefinAccountSnapshot[]>>();
  const notes = new WeakMap<ProviderConnection, ProviderNotes>();

  function read(connection: ProviderConnection) {
    const since = connection.readSince;
    let pending = reads.get(connection);
    if (!pending) {
      const now = deps.now();
      const start = since
        ? new Date(`${since}T00:00:00Z`)
        : new Date(now.getTime() - simplefinHistoryDays * 86_400_000);
      pending = deps.client.accounts(openSecret(deps.box, connection), start).then((set) => {
        const messages = simplefinMessages(set);
        const skipped: SkipTally = {};
        const accounts = transformAccountSet(set, now.toISOString().slice(0, 10), skipped);
        // Errors with no data are the provider's answer about the connection; errors beside
        // data still deliver the data, and the message is the connection's notice.
        const problem = errorsToProviderError(messages);
        if (problem && (set.accounts ?? []).length === 0) throw problem;
        notes.set(connection, {
          message: messages.length > 0 ? messages.map((m) => m.text).join("; ") : null,
          skipped,
        });
        return accounts;
      });
      reads.set(connection, pending);
    }
    return pending;
  }

  async function account(connection: ProviderConnection, externalId: string) {
    const found = (await read(connection)).find((a) => a.account.externalId === externalId);
    if (!found)
      throw new ProviderError("unavailable", `SimpleFIN no longer lists account ${externalId}`);
    return found;
  }

  return {
    name: "simplefin",
    minIntervalMs: 60 * 60 * 1000,
    budget: simplefinBudget,
    async connectionStatus(connection) {
      // Never claimed (the link failed): nothing to read.
      if (!connection.sealedSecret) return { status: connection.status };
      // SimpleFIN has no status call: the read itself says (its errors, or a 403).
      return { status: "linked" };
    },
    async listAccounts(connection) {
      return (await read(connection)).map((a) => a.account);
    },
    async fetchBalance(connection, externalId) {
      return (await account(connection, externalId)).balance;
    },
    async fetchTransactions(connection, externalId) {
      return (await account(connection, externalId)).transactions;
    },
    notes(connection) {
      return notes.get(connection) ?? { message: null, skipped: {} };
    },
  };
}
