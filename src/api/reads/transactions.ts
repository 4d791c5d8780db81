// One account's transactions in a booking-date window, newest first, with keyset pagination on
// (booking_date desc, id desc): a page starts strictly after the last row of the previous page, so
// rows that arrive between two requests never shift or repeat the rows already paged through.
import { and, desc, eq, gte, isNull, lt, lte, or, sql } from "drizzle-orm";
import type { TransactionStatus } from "../../db/schema.ts";
import type { Db } from "../../db/store.ts";
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
  ): Promise<Page<TransactionView>>;
}

const p = (name: string) => sql.placeholder(name);

export function createTransactionReads(
  db: Db,
  accounts: Pick<AccountReads, "requireOwnAccount">,
): TransactionReads {
  const { transactions: t } = db.t;
  const columns = {
    transaction_id: t.id,
    account_id: t.accountId,
    status: t.status,
    amount: t.amount,
    currency: t.currency,
    booking_date: t.bookingDate,
    value_date: t.valueDate,
    description: t.description,
    counterparty_name: t.counterpartyName,
    merchant_name: t.merchantName,
  };
  // The range and order use transactions_page_idx (account_id, booking_date, id), scanned
  // backwards. A page starts strictly after the previous page's last row.
  const page = (pending: boolean, later: boolean) =>
    db
      .select(columns)
      .from(t)
      .where(
        and(
          eq(t.accountId, p("account")),
          gte(t.bookingDate, p("from")),
          lte(t.bookingDate, p("to")),
          pending
            ? or(eq(t.status, "booked"), isNull(t.bookedTransactionId))
            : eq(t.status, "booked"),
          later
            ? or(lt(t.bookingDate, p("date")), and(eq(t.bookingDate, p("date")), lt(t.id, p("id"))))
            : undefined,
        ),
      )
      .orderBy(desc(t.bookingDate), desc(t.id))
      .limit(p("limit"))
      .prepare(`svc_transactions_${pending ? "pending" : "booked"}_${later ? "later" : "first"}`);
  const pages = {
    booked: { first: page(false, false), later: page(false, true) },
    pending: { first: page(true, false), later: page(true, true) },
  };
  return {
    async listTransactions(serviceAccountId, accountId, query) {
      await accounts.requireOwnAccount(serviceAccountId, accountId);
      const kind = pages[query.includePending ? "pending" : "booked"];
      const params = {
        account: accountId,
        from: query.window.from,
        to: query.window.to,
        limit: query.limit + 1,
      };
      const rows = query.after
        ? await kind.later.execute({ ...params, date: query.after.bookingDate, id: query.after.id })
        : await kind.first.execute(params);
      return toPage(rows, query.limit);
    },
  };
}
