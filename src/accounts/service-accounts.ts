// Service accounts (tenants) and their users (spec 2, 3). Operators set the
// status, subscription and flags that decide entitlement (spec 3, 7).
import { type AnyColumn, and, asc, eq, exists, or, sql } from "drizzle-orm";
import { z } from "zod";
import type { Clock } from "../core/clock.ts";
import { ApiError } from "../core/errors.ts";
import { newId } from "../core/ids.ts";
import {
  type AccountStatus,
  accountStatuses,
  type SubscriptionStatus,
  subscriptionStatuses,
} from "../db/schema.ts";
import { type Db, first } from "../db/store.ts";
import { activateIfRealBankAndBilling } from "./activation.ts";
import { type AccessFacts, accessFactsOf } from "./entitlement.ts";
import { generateOneTimePassword, hashPassword, passwordProblem } from "./passwords.ts";

export const emailSchema = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.email("must be an e-mail address").max(254, "must be at most 254 characters"));

export const accountFlagsSchema = z
  .object({
    status: z.enum(accountStatuses),
    subscriptionStatus: z.enum(subscriptionStatuses),
    paymentFailed: z.boolean(),
    disabled: z.boolean(),
    demo: z.boolean(),
    connectEnabled: z.boolean(),
  })
  .partial()
  .strict();
export type AccountFlags = z.infer<typeof accountFlagsSchema>;

export interface ServiceAccountView extends AccessFacts {
  id: string;
  name: string;
  createdAt: string;
  updatedAt: string;
  users: { id: string; email: string; isOperator: boolean }[];
}

export interface CreateAccountInput {
  email: string;
  name?: string;
  /** Omit to generate a one-time password that must be changed at first sign-in. */
  password?: string;
  isOperator?: boolean;
  status?: AccountStatus;
  subscriptionStatus?: SubscriptionStatus;
}

export interface CreatedAccount {
  account: ServiceAccountView;
  userId: string;
  /** Present only when the password was generated; shown once. */
  oneTimePassword?: string;
}

async function view(db: Db, id: string): Promise<ServiceAccountView> {
  const { serviceAccounts, users } = db.t;
  const row = await first(db.select().from(serviceAccounts).where(eq(serviceAccounts.id, id)));
  if (!row) throw new ApiError("not_found", `No service account ${id}.`);
  const members = await db
    .select({ id: users.id, email: users.email, isOperator: users.isOperator })
    .from(users)
    .where(eq(users.serviceAccountId, id))
    .orderBy(asc(users.createdAt), asc(users.id));
  return {
    id: row.id,
    name: row.name,
    ...accessFactsOf(row),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    users: members,
  };
}

export function getServiceAccount(db: Db, id: string): Promise<ServiceAccountView> {
  return view(db, id);
}

/** Creates a service account and its first user in one transaction. */
export async function createServiceAccount(
  db: Db,
  clock: Clock,
  input: CreateAccountInput,
): Promise<CreatedAccount> {
  const email = emailSchema.safeParse(input.email);
  if (!email.success)
    throw new ApiError("invalid_request", `email ${email.error.issues[0]?.message}.`);
  const generated = input.password === undefined ? generateOneTimePassword() : undefined;
  const password = input.password ?? (generated as string);
  const problem = passwordProblem(password);
  if (problem) throw new ApiError("invalid_request", `password ${problem}.`);
  const passwordHash = await hashPassword(password);
  const now = clock.now();
  const accountId = newId();
  const userId = newId();
  const { serviceAccounts, users } = db.t;
  await db.write(async (tx) => {
    const taken = await first(
      tx.select({ id: users.id }).from(users).where(eq(users.email, email.data)),
    );
    if (taken) throw new ApiError("conflict", `A user with e-mail ${email.data} already exists.`);
    await tx.insert(serviceAccounts).values({
      id: accountId,
      name: input.name?.trim() || email.data,
      status: input.status ?? "sandbox",
      subscriptionStatus: input.subscriptionStatus ?? "none",
      createdAt: now,
      updatedAt: now,
    });
    await tx.insert(users).values({
      id: userId,
      serviceAccountId: accountId,
      email: email.data,
      passwordHash,
      isOperator: input.isOperator ?? false,
      mustChangePassword: generated !== undefined,
      createdAt: now,
    });
  });
  return {
    account: await view(db, accountId),
    userId,
    ...(generated !== undefined ? { oneTimePassword: generated } : {}),
  };
}

/** Changes the operator-controlled status, subscription and flags of an account. */
export async function updateServiceAccount(
  db: Db,
  clock: Clock,
  id: string,
  changes: AccountFlags,
): Promise<ServiceAccountView> {
  const parsed = accountFlagsSchema.safeParse(changes);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ApiError(
      "invalid_request",
      `${issue?.path.join(".") || "changes"}: ${issue?.message}`,
    );
  }
  const { serviceAccounts } = db.t;
  const updated = await db.write(async (tx) => {
    const rows = await tx
      .update(serviceAccounts)
      .set({ ...parsed.data, updatedAt: clock.now() })
      .where(eq(serviceAccounts.id, id))
      .returning({ id: serviceAccounts.id });
    // Billing set up after a real bank was linked: this is the moment the account goes active.
    if (rows.length > 0 && parsed.data.subscriptionStatus && parsed.data.status === undefined)
      await activateIfRealBankAndBilling(tx, clock, id);
    return rows;
  });
  if (updated.length === 0) throw new ApiError("not_found", `No service account ${id}.`);
  return view(db, id);
}

/** All accounts, optionally filtered by a search over id, name, user e-mails and connection ids. */
export async function listServiceAccounts(db: Db, search?: string): Promise<ServiceAccountView[]> {
  const term = search?.trim().toLowerCase();
  const pattern = term ? `%${term.replace(/[%_\\]/g, "\\$&")}%` : undefined;
  const { connections, serviceAccounts, users } = db.t;
  // lower() on both sides: SQLite's LIKE ignores ASCII case, PostgreSQL's does not.
  const like = (column: AnyColumn) => sql`lower(${column}) LIKE ${pattern} ESCAPE '\\'`;
  // An operator handed a connection id (a support request, a log line) finds its account.
  const connectionMatches = exists(
    db
      .select({ one: sql`1` })
      .from(connections)
      .where(and(eq(connections.serviceAccountId, serviceAccounts.id), like(connections.id))),
  );
  const rows = await db
    // PostgreSQL wants DISTINCT's ORDER BY columns selected.
    .selectDistinct({ id: serviceAccounts.id, createdAt: serviceAccounts.createdAt })
    .from(serviceAccounts)
    .leftJoin(users, eq(users.serviceAccountId, serviceAccounts.id))
    .where(
      pattern
        ? or(
            like(serviceAccounts.id),
            like(serviceAccounts.name),
            like(users.email),
            connectionMatches,
          )
        : undefined,
    )
    .orderBy(asc(serviceAccounts.createdAt), asc(serviceAccounts.id));
  return Promise.all(rows.map((row) => view(db, row.id)));
}

/** What the users of a disabled account read: the portal's notice and its 403s (docs/decisions.md). */
export const accountDisabledNotice =
  "This account is disabled: API keys, webhook endpoints and bank connections can be looked at but not created or changed, and API calls with its keys are refused. Contact the operator of this service to re-enable it.";
