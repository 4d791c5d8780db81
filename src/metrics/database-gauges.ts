// Gauges read from the database when Prometheus scrapes, so they show work written by every
// process (the CLI included) and are right after a restart. Each is one indexed query over a
// small set of rows: pending deliveries (deliveries_due_idx on status), endpoints (at most 3 per
// account), connections and unsent mail.
import { count, eq, isNotNull, isNull, sql } from "drizzle-orm";
import type { Clock } from "../core/clock.ts";
import type { AnyDatabase } from "../db/open.ts";
import { connectionStatuses, endpointStatuses } from "../db/schema.ts";
import type { Db } from "../db/store.ts";
import { Gauge, type Registry } from "./prom.ts";

interface DeliveryBacklog {
  leased: number;
  due: number;
  scheduled: number;
  oldestDueAt: number | null;
  oldestCreatedAt: number | null;
}

/** count(*) FILTER (WHERE ...), which both engines have; a number on both. */
const countWhere = (condition: ReturnType<typeof sql>) =>
  sql<number>`count(*) FILTER (WHERE ${condition})`.mapWith(Number);

export function registerDatabaseGauges(
  registry: Registry,
  name: (suffix: string) => string,
  deps: { db: Db; clock: Clock },
): void {
  const { db } = deps;
  const { deliveries, webhookEndpoints, connections, mailOutbox } = db.t;
  const registers = [registry];
  // A claim moves next_attempt_at and lease_expires_at to the lease's end; a lease that ran out
  // (a crashed sender) leaves the row due again. Each gauge reads the backlog itself (a few
  // pending rows), so no gauge depends on the order in which prom-client collects them.
  const readBacklog = async (): Promise<DeliveryBacklog> => {
    const now = deps.clock.now().getTime();
    const free = sql`COALESCE(${deliveries.leaseExpiresAt}, 0) <= ${now}`;
    const dueNow = sql`${free} AND ${deliveries.nextAttemptAt} <= ${now}`;
    const [row] = await db
      .select({
        leased: countWhere(sql`${deliveries.leaseExpiresAt} > ${now}`),
        due: countWhere(dueNow),
        scheduled: countWhere(sql`${free} AND ${deliveries.nextAttemptAt} > ${now}`),
        oldestDueAt: sql<
          number | null
        >`MIN(CASE WHEN ${dueNow} THEN ${deliveries.nextAttemptAt} END)`.mapWith(Number),
        oldestCreatedAt: sql<number | null>`MIN(${deliveries.createdAt})`.mapWith(Number),
      })
      .from(deliveries)
      .where(eq(deliveries.status, "pending"));
    return row ?? { leased: 0, due: 0, scheduled: 0, oldestDueAt: null, oldestCreatedAt: null };
  };
  const ageSeconds = (since: number | null) =>
    since === null || Number.isNaN(since)
      ? 0
      : Math.max(0, (deps.clock.now().getTime() - since) / 1000);

  new Gauge({
    name: name("webhook_deliveries_pending"),
    help: "Pending deliveries, by state: due (waiting for a free sender), retry_scheduled (waiting for their next attempt), leased (being sent now).",
    labelNames: ["state"] as const,
    registers,
    async collect() {
      const row = await readBacklog();
      this.set({ state: "due" }, row.due);
      this.set({ state: "retry_scheduled" }, row.scheduled);
      this.set({ state: "leased" }, row.leased);
    },
  });
  new Gauge({
    name: name("webhook_oldest_due_delivery_age_seconds"),
    help: "How long the longest-waiting due delivery has been due (0 when none is): the dispatcher's lag.",
    registers,
    async collect() {
      this.set(ageSeconds((await readBacklog()).oldestDueAt));
    },
  });
  new Gauge({
    name: name("webhook_oldest_pending_delivery_age_seconds"),
    help: "Age of the oldest pending delivery since its event was recorded (0 when none is); the retry schedule keeps a failing delivery pending for up to 38.6 hours.",
    registers,
    async collect() {
      this.set(ageSeconds((await readBacklog()).oldestCreatedAt));
    },
  });
  new Gauge({
    name: name("webhook_endpoints"),
    help: "Webhook endpoints, by state (active, paused, disabled) and whether they are verified.",
    labelNames: ["state", "verified"] as const,
    registers,
    async collect() {
      const verified = isNotNull(webhookEndpoints.verifiedAt);
      const rows = await db
        .select({
          status: webhookEndpoints.status,
          verified: countWhere(verified),
          unverified: countWhere(isNull(webhookEndpoints.verifiedAt)),
        })
        .from(webhookEndpoints)
        .groupBy(webhookEndpoints.status);
      this.reset();
      for (const state of endpointStatuses) {
        for (const flag of ["true", "false"]) this.set({ state, verified: flag }, 0);
      }
      for (const row of rows) {
        this.set({ state: row.status, verified: "true" }, row.verified);
        this.set({ state: row.status, verified: "false" }, row.unverified);
      }
    },
  });
  new Gauge({
    name: name("connections"),
    help: "Bank connections, by status.",
    labelNames: ["status"] as const,
    registers,
    async collect() {
      const rows = await db
        .select({ status: connections.status, count: count() })
        .from(connections)
        .groupBy(connections.status);
      this.reset();
      for (const status of connectionStatuses) this.set({ status }, 0);
      for (const row of rows) this.set({ status: row.status }, row.count);
    },
  });
  new Gauge({
    name: name("mail_unsent"),
    help: "E-mails not sent yet, by state: waiting (for SMTP or a retry; without smtpUrl mail always waits) or given_up (every retry failed).",
    labelNames: ["state"] as const,
    registers,
    async collect() {
      const [row] = await db
        .select({
          waiting: countWhere(isNotNull(mailOutbox.nextAttemptAt)),
          givenUp: countWhere(isNull(mailOutbox.nextAttemptAt)),
        })
        .from(mailOutbox)
        .where(isNull(mailOutbox.sentAt));
      this.set({ state: "waiting" }, row?.waiting ?? 0);
      this.set({ state: "given_up" }, row?.givenUp ?? 0);
    },
  });
}

/**
 * The database connections of this process: PostgreSQL's pool as the server sees it
 * (pg_stat_activity, by this process's application_name), or SQLite's two connections.
 */
export function registerPoolGauges(
  registry: Registry,
  name: (suffix: string) => string,
  database: AnyDatabase,
): void {
  const registers = [registry];
  new Gauge({
    name: name("database_pool_size"),
    help: "Database connections this process may open at most (PostgreSQL: databasePoolSize; SQLite: 2, one writer and one reader).",
    registers,
    collect() {
      this.set(database.engine === "postgres" ? database.poolSize : 2);
    },
  });
  new Gauge({
    name: name("database_pool_connections"),
    help: "Open database connections of this process, by state: active (running a query), idle, idle_in_transaction (PostgreSQL, as the server reports them); SQLite's are always open (idle).",
    labelNames: ["state"] as const,
    registers,
    async collect() {
      this.reset();
      for (const state of ["active", "idle", "idle_in_transaction"]) this.set({ state }, 0);
      if (database.engine === "sqlite") {
        this.set({ state: "idle" }, 2);
        return;
      }
      // The scrape's own connection is among them, active while it runs this query.
      const rows: { state: string | null; n: string | number }[] = await database.client`
        SELECT state, count(*) AS n FROM pg_stat_activity
         WHERE application_name = ${database.applicationName} GROUP BY state`;
      for (const row of rows) {
        this.set({ state: (row.state ?? "idle").replace(/ /g, "_") }, Number(row.n));
      }
    },
  });
}
