// Operator ingest's `transform`: an ingest document -> one snapshot per connection, in our
// model. Amounts are normalised to the currency's minor digits, so "12.3" and "12.30" are the
// same amount and re-importing either changes nothing.
import type { ConnectionStatus } from "../../db/schema.ts";
import type { AccountSnapshot, ConnectionSnapshot } from "../model.ts";
import { normalizeAmount } from "../money.ts";
import type { ImportDocument } from "./schema.ts";

export interface ImportedConnection {
  externalId: string;
  institution: string;
  status: ConnectionStatus;
  snapshot: ConnectionSnapshot;
}

type ImportAccount = ImportDocument["connections"][number]["accounts"][number];

function maskOf(account: ImportAccount): string | null {
  if (account.mask) return account.mask;
  return account.iban ? account.iban.slice(-4) : null;
}

function transformAccount(account: ImportAccount): AccountSnapshot {
  const currency = account.currency;
  return {
    account: {
      externalId: account.id,
      name: account.name,
      type: account.type,
      currency,
      iban: account.iban ?? null,
      mask: maskOf(account),
    },
    ...(account.balance
      ? {
          balance: {
            current: normalizeAmount(account.balance.current, currency),
            available:
              account.balance.available == null
                ? null
                : normalizeAmount(account.balance.available, currency),
            currency,
            asOf: new Date(account.balance.as_of),
          },
        }
      : {}),
    transactions: account.transactions.map((t) => {
      const txCurrency = t.currency ?? currency;
      return {
        externalId: t.id,
        status: t.status,
        amount: normalizeAmount(t.amount, txCurrency),
        currency: txCurrency,
        bookingDate: t.booking_date,
        valueDate: t.value_date ?? null,
        description: t.description,
        counterpartyName: t.counterparty_name ?? null,
        merchantName: t.merchant_name ?? null,
        pendingExternalId: t.pending_id ?? null,
      };
    }),
  };
}

export function transformImport(document: ImportDocument): ImportedConnection[] {
  return document.connections.map((connection) => ({
    externalId: connection.id,
    institution: connection.institution,
    status: connection.status,
    snapshot: {
      status: connection.status,
      error:
        connection.status === "error"
          ? (connection.error ?? "reported as error by the operator's import")
          : null,
      accounts: connection.accounts.map(transformAccount),
    },
  }));
}
