// Operator ingest (issue 4): upserts connections, accounts, balances and transactions from one
// document, all in one transaction with the events they cause, so a document is applied whole
// or not at all. Idempotent on the operator's ids: the same document again writes nothing and
// raises no event.
import { and, eq } from "drizzle-orm";
import { writeTransaction } from "../../db/open.ts";
import { connections } from "../../db/schema.ts";
import { newId } from "../../ids.ts";
import type { Services } from "../../services.ts";
import { type AccountChange, applyConnectionSnapshot } from "../apply.ts";
import { assertServiceAccount } from "../connections.ts";
import type { ConnectionRow } from "../status.ts";
import { transformImport } from "./transform.ts";
import { validateImportDocument } from "./validate.ts";

export type ImportDeps = Pick<Services, "db" | "clock" | "outbox">;

export interface ImportResult {
  serviceAccountId: string;
  connections: {
    id: string;
    externalId: string;
    created: boolean;
    status: ConnectionRow["status"];
    statusChanged: boolean;
    accounts: AccountChange[];
  }[];
  newTransactions: number;
  eventsRaised: number;
}

/**
 * Imports a parsed JSON document for a service account. Throws ImportRejected (every problem,
 * nothing written) for an invalid document and ApiError not_found for an unknown account.
 */
export function importBankData(
  deps: ImportDeps,
  serviceAccountId: string,
  input: unknown,
): ImportResult {
  assertServiceAccount(deps.db, serviceAccountId);
  const imported = transformImport(validateImportDocument(input));
  const result = deps.db.transaction((tx) => {
    const fetchedAt = deps.clock.now();
    return imported.map((item) => {
      let row = tx
        .select()
        .from(connections)
        .where(
          and(
            eq(connections.serviceAccountId, serviceAccountId),
            eq(connections.provider, "import"),
            eq(connections.externalId, item.externalId),
          ),
        )
        .get();
      const created = !row;
      if (!row) {
        row = {
          id: newId(),
          serviceAccountId,
          provider: "import",
          externalId: item.externalId,
          institution: item.institution,
          status: item.status,
          error: null,
          providerState: "{}",
          createdAt: fetchedAt,
          updatedAt: fetchedAt,
          lastSyncedAt: null,
          syncLeaseRunId: null,
          syncLeaseExpiresAt: null,
        };
        tx.insert(connections).values(row).run();
      } else if (row.institution !== item.institution) {
        tx.update(connections)
          .set({ institution: item.institution, updatedAt: fetchedAt })
          .where(eq(connections.id, row.id))
          .run();
        row = { ...row, institution: item.institution };
      }
      const applied = applyConnectionSnapshot(tx, deps.clock, row, item.snapshot, {
        fetchedAt,
        announceStatus: created,
      });
      const changedData = applied.accounts.some(
        (a) => a.created || a.balanceChanged || a.newTransactions > 0 || a.updatedTransactions > 0,
      );
      if (created || changedData) {
        tx.update(connections)
          .set({ lastSyncedAt: fetchedAt })
          .where(eq(connections.id, row.id))
          .run();
      }
      return {
        id: row.id,
        externalId: item.externalId,
        created,
        status: item.status,
        statusChanged: applied.statusChanged,
        accounts: applied.accounts,
        newTransactions: applied.newTransactions,
        eventsRaised: applied.eventsRaised,
      };
    });
  }, writeTransaction);
  const eventsRaised = result.reduce((sum, c) => sum + c.eventsRaised, 0);
  if (eventsRaised > 0) deps.outbox.notify();
  return {
    serviceAccountId,
    connections: result.map(({ newTransactions: _n, eventsRaised: _e, ...rest }) => rest),
    newTransactions: result.reduce((sum, c) => sum + c.newTransactions, 0),
    eventsRaised,
  };
}
