// What a sync leaves out of a provider's answer, by named reason (docs/providers.md "Skipped
// rows"): a row or account Svc cannot store is skipped, counted (svc_provider_rows_skipped_total)
// and told to the owner in the connection's notice; it never fails a page or a connection.

export const skipReasons = {
  account_without_id: ["account without an identifier", "accounts without an identifier"],
  unsupported_currency: [
    "account or transaction in a currency that is not ISO 4217",
    "accounts or transactions in currencies that are not ISO 4217",
  ],
  malformed_account: [
    "account the provider sent malformed",
    "accounts the provider sent malformed",
  ],
  malformed_transaction: [
    "transaction the provider sent malformed",
    "transactions the provider sent malformed",
  ],
  unknown_direction: [
    "transaction without a credit or debit indicator",
    "transactions without a credit or debit indicator",
  ],
  unknown_status: [
    "transaction with a status Svc does not know",
    "transactions with a status Svc does not know",
  ],
  not_money_movement: [
    "cancelled, rejected, scheduled or informational entry",
    "cancelled, rejected, scheduled or informational entries",
  ],
} as const satisfies Record<string, readonly [string, string]>;
export type SkipReason = keyof typeof skipReasons;

/** How many rows were skipped, by reason. */
export type SkipTally = Partial<Record<SkipReason, number>>;

export function addSkip(tally: SkipTally, reason: SkipReason, count = 1): void {
  tally[reason] = (tally[reason] ?? 0) + count;
}

export function mergeSkips(into: SkipTally, from: SkipTally): void {
  for (const [reason, count] of Object.entries(from) as [SkipReason, number][])
    addSkip(into, reason, count);
}

/** "1 account without an identifier was skipped; 2 transactions ... were skipped", or null. */
export function describeSkips(tally: SkipTally): string | null {
  const parts = (Object.keys(skipReasons) as SkipReason[])
    .filter((reason) => (tally[reason] ?? 0) > 0)
    .map((reason) => {
      const count = tally[reason] ?? 0;
      const [one, many] = skipReasons[reason];
      return count === 1 ? `1 ${one} was skipped` : `${count} ${many} were skipped`;
    });
  return parts.length > 0 ? parts.join("; ") : null;
}
