// One account's transactions in a booking-date window, newest first, with keyset pagination on
// (booking_date desc, id desc): a page starts strictly after the last row of the previous page, so
// rows that arrive between two requests never shift or repeat the rows already paged through.
import type { Database } from "../../db/open.ts";
import type { TransactionStatus } from "../../db/schema.ts";
import type { DateWindow } from "../date-window.ts";
import type { AccountReads } from "./accounts.ts";
import { type Page, toPage } from "./page.ts";

export interface TransactionView {
  transaction_id: string;
  account_id: string;
  status: TransactionStatus;
  amount: string;
  currency: string;
  booking_date: string;
  value_date: string | null;
  description: string;
  counterparty_name: string | null;
  merchant_name: string | null;
}

/** Where a page ends: the last row served. */
export interface TransactionPosition {
  bookingDate: string;
  id: string;
}

export interface TransactionQuery {
  window: DateWindow;
  /** Pending rows are left out unless asked for; a pending row that has booked is never shown. */
  includePending: boolean;
  limit: number;
  after?: TransactionPosition;
}

export interface TransactionReads {
  listTransactions(
    serviceAccountId: string,
    accountId: string,
    query: TransactionQuery,
  ): Page<TransactionView>;
}

// The range and order use transactions_page_idx (account_id, booking_date, id), scanned backwards.
const select = `SELECT id AS transaction_id, account_id, status, amount, currency, booking_date,
       value_date, description, counterparty_name, merchant_name
  FROM transactions
 WHERE account_id = ?1 AND booking_date >= ?2 AND booking_date <= ?3
   AND (status = 'booked' OR (?4 = 1 AND booked_transaction_id IS NULL))`;
const order = "ORDER BY booking_date DESC, id DESC LIMIT ?5";

type Params = [string, string, string, number, number];

export function createTransactionReads(
  database: Database,
  accounts: Pick<AccountReads, "requireOwnAccount">,
): TransactionReads {
  const firstPage = database.sqlite.prepare<TransactionView, Params>(`${select} ${order}`);
  const laterPage = database.sqlite.prepare<TransactionView, [...Params, string, string]>(
    `${select} AND (booking_date < ?6 OR (booking_date = ?6 AND id < ?7)) ${order}`,
  );
  // One read transaction: one snapshot for the ownership check and the page, one lock round.
  const read = database.sqlite.transaction(
    (serviceAccountId: string, accountId: string, query: TransactionQuery) => {
      accounts.requireOwnAccount(serviceAccountId, accountId);
      const params: Params = [
        accountId,
        query.window.from,
        query.window.to,
        query.includePending ? 1 : 0,
        query.limit + 1,
      ];
      const rows = query.after
        ? laterPage.all(...params, query.after.bookingDate, query.after.id)
        : firstPage.all(...params);
      return toPage(rows, query.limit);
    },
  );
  return {
    listTransactions: (serviceAccountId, accountId, query) =>
      read(serviceAccountId, accountId, query),
  };
}
