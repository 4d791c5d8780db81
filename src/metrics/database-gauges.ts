// Gauges read from the database when Prometheus scrapes, so they show work written by every
// process (the CLI included) and are right after a restart. Each is one indexed query over a
// small set of rows: pending deliveries (deliveries_due_idx on status), endpoints (at most 3 per
// account), connections and unsent mail.
import { Gauge, type Registry } from "prom-client";
import type { Clock } from "../clock.ts";
import type { Database } from "../db/open.ts";
import { connectionStatuses, endpointStatuses } from "../db/schema.ts";

interface DeliveryBacklog {
  leased: number | null;
  due: number | null;
  scheduled: number | null;
  oldestDueAt: number | null;
  oldestCreatedAt: number | null;
}

// A claim moves next_attempt_at and lease_expires_at to the lease's end; a lease that ran out
// (a crashed sender) leaves the row due again.
const backlogSql = `
  SELECT
    SUM(lease_expires_at > ?1) AS leased,
    SUM(COALESCE(lease_expires_at, 0) <= ?1 AND next_attempt_at <= ?1) AS due,
    SUM(COALESCE(lease_expires_at, 0) <= ?1 AND next_attempt_at > ?1) AS scheduled,
    MIN(CASE WHEN COALESCE(lease_expires_at, 0) <= ?1 AND next_attempt_at <= ?1
             THEN next_attempt_at END) AS oldestDueAt,
    MIN(created_at) AS oldestCreatedAt
  FROM deliveries WHERE status = 'pending'`;

const endpointsSql = `
  SELECT status, verified_at IS NOT NULL AS verified, COUNT(*) AS count
  FROM webhook_endpoints GROUP BY 1, 2`;

const connectionsSql = "SELECT status, COUNT(*) AS count FROM connections GROUP BY status";

const mailSql = `
  SELECT SUM(next_attempt_at IS NOT NULL) AS waiting, SUM(next_attempt_at IS NULL) AS givenUp
  FROM mail_outbox WHERE sent_at IS NULL`;

export function registerDatabaseGauges(
  registry: Registry,
  name: (suffix: string) => string,
  deps: { database: Pick<Database, "sqlite">; clock: Clock },
): void {
  const { sqlite } = deps.database;
  const registers = [registry];
  // Each gauge reads the backlog itself (a few pending rows), so no gauge depends on the order
  // in which prom-client collects them.
  const readBacklog = (): DeliveryBacklog =>
    sqlite
      .query<DeliveryBacklog, [number]>(backlogSql)
      .get(deps.clock.now().getTime()) as DeliveryBacklog;
  const ageSeconds = (since: number | null) =>
    since === null ? 0 : Math.max(0, (deps.clock.now().getTime() - since) / 1000);

  new Gauge({
    name: name("webhook_deliveries_pending"),
    help: "Pending deliveries, by state: due (waiting for a free sender), retry_scheduled (waiting for their next attempt), leased (being sent now).",
    labelNames: ["state"] as const,
    registers,
    collect() {
      const row = readBacklog();
      this.set({ state: "due" }, row.due ?? 0);
      this.set({ state: "retry_scheduled" }, row.scheduled ?? 0);
      this.set({ state: "leased" }, row.leased ?? 0);
    },
  });
  new Gauge({
    name: name("webhook_oldest_due_delivery_age_seconds"),
    help: "How long the longest-waiting due delivery has been due (0 when none is): the dispatcher's lag.",
    registers,
    collect() {
      this.set(ageSeconds(readBacklog().oldestDueAt));
    },
  });
  new Gauge({
    name: name("webhook_oldest_pending_delivery_age_seconds"),
    help: "Age of the oldest pending delivery since its event was recorded (0 when none is); the retry schedule keeps a failing delivery pending for up to 38.6 hours.",
    registers,
    collect() {
      this.set(ageSeconds(readBacklog().oldestCreatedAt));
    },
  });
  new Gauge({
    name: name("webhook_endpoints"),
    help: "Webhook endpoints, by state (active, paused, disabled) and whether they are verified.",
    labelNames: ["state", "verified"] as const,
    registers,
    collect() {
      this.reset();
      for (const state of endpointStatuses) {
        for (const verified of ["true", "false"]) this.set({ state, verified }, 0);
      }
      const rows = sqlite
        .query<{ status: string; verified: number; count: number }, []>(endpointsSql)
        .all();
      for (const row of rows) {
        this.set({ state: row.status, verified: row.verified ? "true" : "false" }, row.count);
      }
    },
  });
  new Gauge({
    name: name("connections"),
    help: "Bank connections, by status.",
    labelNames: ["status"] as const,
    registers,
    collect() {
      this.reset();
      for (const status of connectionStatuses) this.set({ status }, 0);
      const rows = sqlite.query<{ status: string; count: number }, []>(connectionsSql).all();
      for (const row of rows) this.set({ status: row.status }, row.count);
    },
  });
  new Gauge({
    name: name("mail_unsent"),
    help: "E-mails not sent yet, by state: waiting (for SMTP or a retry; without smtpUrl mail always waits) or given_up (every retry failed).",
    labelNames: ["state"] as const,
    registers,
    collect() {
      const row = sqlite
        .query<{ waiting: number | null; givenUp: number | null }, []>(mailSql)
        .get();
      this.set({ state: "waiting" }, row?.waiting ?? 0);
      this.set({ state: "given_up" }, row?.givenUp ?? 0);
    },
  });
}
