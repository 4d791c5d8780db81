// Where an owner goes to update payment details: the operator's billing page when
// `billingUrl` is set, else the operators' e-mail addresses, so the "update your payment
// details" message never ends in a dead end.
import { asc, eq } from "drizzle-orm";
import type { Config } from "../config/config.ts";
import type { Db } from "../db/store.ts";

export interface BillingContact {
  /** The operator's billing page, or null when none is configured. */
  url: string | null;
  /** Operators' e-mail addresses, to write to when there is no billing page. */
  operatorEmails: string[];
}

export async function billingContact(
  db: Db,
  config: Pick<Config, "billingUrl">,
): Promise<BillingContact> {
  if (config.billingUrl) return { url: config.billingUrl, operatorEmails: [] };
  const { users } = db.t;
  const operators = await db
    .select({ email: users.email })
    .from(users)
    .where(eq(users.isOperator, true))
    .orderBy(asc(users.createdAt), asc(users.id))
    .limit(3);
  return { url: null, operatorEmails: operators.map((o) => o.email) };
}
