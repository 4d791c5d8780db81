// The sandbox bank behind the provider interface. Its data is a pure function of the seed and
// the clock, so every sync brings what happened since the last one and re-reading a window
// returns the same rows. Its status is whatever the operator drove the connection to
// (`svc sandbox set-status`); in `error` every read fails, as a broken provider's would.
import { z } from "zod";
import type { Clock } from "../../core/clock.ts";
import type { BankProvider, ProviderConnection } from "../provider.ts";
import { accountsPayload, balancesPayload, transactionsPayload } from "./bank.ts";
import { type SandboxProfile, type SandboxState, sandboxProfile } from "./profile.ts";
import { transformAccounts, transformBalance, transformTransactions } from "./transform.ts";

/** Scheduled syncs of a sandbox connection are at least this far apart. */
export const sandboxMinIntervalMs = 60_000;

const accountCode = z.enum(["cur", "sav", "card"]);

const simulatedSchema = z.object({
  items: z.array(
    z.object({
      key: z.string(),
      account: accountCode,
      amountCents: z.number().int(),
      at: z.number().int(),
      bookAt: z.number().int(),
      description: z.string(),
      counterparty: z.string().nullable(),
      merchant: z.string().nullable(),
    }),
  ),
  booked: z.record(z.string(), z.number().int()),
  balances: z.partialRecord(
    accountCode,
    z.object({ cents: z.number().int(), at: z.number().int() }),
  ),
});

const sandboxStateSchema = z.object({
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 32 - 1),
  openedAt: z.number().int(),
  simulated: simulatedSchema.optional(),
});

class SandboxProviderError extends Error {
  override name = "SandboxProviderError";
}

export function parseSandboxState(state: unknown): SandboxState {
  const parsed = sandboxStateSchema.safeParse(state);
  if (!parsed.success)
    throw new SandboxProviderError("sandbox connection has no valid seed in its provider state");
  return parsed.data;
}

function profileOf(connection: ProviderConnection): SandboxProfile {
  if (connection.status === "error") {
    throw new SandboxProviderError(
      "the sandbox bank is failing on purpose (status set to error); set the status to linked to recover",
    );
  }
  return sandboxProfile(parseSandboxState(connection.state));
}

export function createSandboxProvider(clock: Clock): BankProvider {
  return {
    name: "sandbox",
    minIntervalMs: sandboxMinIntervalMs,
    async connectionStatus(connection) {
      profileOf(connection);
      return { status: connection.status };
    },
    async listAccounts(connection) {
      return transformAccounts(accountsPayload(profileOf(connection)));
    },
    async fetchBalance(connection, accountExternalId) {
      const profile = profileOf(connection);
      return transformBalance(balancesPayload(profile, accountExternalId, clock.now().getTime()));
    },
    async fetchTransactions(connection, accountExternalId, since) {
      const profile = profileOf(connection);
      return transformTransactions(
        transactionsPayload(profile, accountExternalId, since, clock.now().getTime()),
      );
    },
  };
}
