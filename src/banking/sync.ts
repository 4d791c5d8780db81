// The one sync path: used by the scheduler, `svc sync` and the portal's "Sync now".
// A sync takes the connection's lease (never two syncs of one connection at once, across
// processes), reads the provider outside any transaction, then writes data and events in one
// transaction. A failing provider marks the connection `error` with its message and leaves
// last_synced_at where it was, so the next sync re-reads from there. Every run is recorded in
// sync_runs.
import { desc, eq, inArray } from "drizzle-orm";
import type { Clock } from "../core/clock.ts";
import { addDays, toDateString } from "../core/dates.ts";
import { ApiError } from "../core/errors.ts";
import { newId } from "../core/ids.ts";
import { type Db, first } from "../db/store.ts";
import type { Logger } from "../log/log.ts";
import type { Metrics } from "../metrics/metrics.ts";
import type { OutboxSignal } from "../webhooks/events/outbox-signal.ts";
import { applyConnectionSnapshot } from "./apply.ts";
import { getConnection } from "./connections.ts";
import { claimSyncLease, holdsSyncLease, releaseSyncLease } from "./lease.ts";
import { withoutUrlPaths } from "./notice.ts";
import type { BankProvider, ProviderRegistry } from "./provider.ts";
import { planPull } from "./providers/budget.ts";
import { ProviderError, statusAfterFailure } from "./providers/errors.ts";
import { readConnection } from "./read.ts";
import { type ConnectionRow, moveConnectionStatus } from "./status.ts";

/** Each sync re-reads this many days before the last successful one, to catch late bookings. */
const trailingWindowDays = 7;
/** A provider read that takes longer fails the run (well inside the lease). */
const providerTimeoutMs = 120_000;

export type SyncTrigger = "schedule" | "cli" | "portal";
export interface SyncDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  /** Told when a run raised events, so the dispatcher sends them at once. */
  outbox: Pick<OutboxSignal, "notify">;
  /** The providers, built once where the services are wired. */
  providers: ProviderRegistry;
  /** Counts runs and their duration (svc serve's /metrics). */
  metrics?: Pick<Metrics, "syncRun"> & Partial<Pick<Metrics, "providerRowsSkipped">>;
}

export interface SyncOptions {
  trigger: SyncTrigger;
  /** Run even if the provider's minimum interval since the last run has not passed. */
  force?: boolean;
  /** Defaults to the registry the services were wired with (deps.providers); tests pass their own. */
  providers?: ProviderRegistry;
}

export type SyncResult =
  | {
      connectionId: string;
      outcome: "succeeded";
      runId: string;
      status: ConnectionRow["status"];
      newTransactions: number;
      eventsRaised: number;
    }
  | {
      connectionId: string;
      outcome: "failed";
      runId: string;
      status: ConnectionRow["status"];
      error: string;
      eventsRaised: number;
    }
  /** Another sync of this connection (maybe in another process) is running. */
  | { connectionId: string; outcome: "busy" }
  /** The provider's minimum interval since the last run has not passed (scheduled syncs). */
  | { connectionId: string; outcome: "too_soon"; nextAllowedAt: string };

class LeaseLost extends Error {
  override name = "LeaseLost";
}

function describeError(error: unknown): string {
  // Stored in sync_runs and logged: never a URL path or query (it may hold a secret).
  const text = withoutUrlPaths(error instanceof Error ? error.message : String(error));
  return text.length > 500 ? `${text.slice(0, 497)}...` : text;
}

async function withTimeout<T>(work: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} did not answer within ${timeoutMs / 1000} s`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function providerFor(connection: ConnectionRow, providers: ProviderRegistry): BankProvider {
  const provider = providers[connection.provider];
  if (!provider) {
    throw new ApiError(
      "invalid_state",
      `Connection ${connection.id} is fed by operator ingest (svc import); there is nothing to pull.`,
    );
  }
  return provider;
}

async function lastRunStart(deps: SyncDeps, connectionId: string): Promise<Date | undefined> {
  const { syncRuns } = deps.db.t;
  const run = await first(
    deps.db
      .select({ startedAt: syncRuns.startedAt })
      .from(syncRuns)
      .where(eq(syncRuns.connectionId, connectionId))
      .orderBy(desc(syncRuns.startedAt))
      .limit(1),
  );
  return run?.startedAt;
}

async function finishRun(
  deps: SyncDeps,
  tx: Db,
  runId: string,
  values: {
    outcome: "succeeded" | "failed";
    error?: string;
    newTransactions?: number;
    eventsRaised: number;
  },
): Promise<void> {
  const { syncRuns } = tx.t;
  await tx
    .update(syncRuns)
    .set({ ...values, finishedAt: deps.clock.now() })
    .where(eq(syncRuns.id, runId));
}

/** Syncs one connection now. Throws ApiError for an unknown or push-only connection. */
export async function syncConnection(
  deps: SyncDeps,
  connectionId: string,
  options: SyncOptions,
): Promise<SyncResult> {
  const providers = options.providers ?? deps.providers;
  const connection = await getConnection(deps.db, connectionId);
  const provider = providerFor(connection, providers);
  const startedAt = deps.clock.now();
  if (!options.force) {
    const last = await lastRunStart(deps, connectionId);
    if (last && startedAt.getTime() - last.getTime() < provider.minIntervalMs) {
      return {
        connectionId,
        outcome: "too_soon",
        nextAllowedAt: new Date(last.getTime() + provider.minIntervalMs).toISOString(),
      };
    }
  }
  // A real bank's budget or a rate limit set the earliest next pull: even a forced sync waits,
  // since the requests it would spend are the bank's.
  if (connection.nextPullAt && connection.nextPullAt.getTime() > startedAt.getTime()) {
    return {
      connectionId,
      outcome: "too_soon",
      nextAllowedAt: connection.nextPullAt.toISOString(),
    };
  }
  const runId = newId();
  const claimed = await deps.db.write(async (tx) => {
    if (!(await claimSyncLease(tx, connectionId, runId, startedAt))) return false;
    await tx
      .insert(tx.t.syncRuns)
      .values({ id: runId, connectionId, trigger: options.trigger, startedAt, outcome: "running" });
    return true;
  });
  if (!claimed) return { connectionId, outcome: "busy" };
  const log = deps.log.child({ connectionId, runId, provider: provider.name });
  const started = performance.now();
  const observe = (outcome: "succeeded" | "failed") =>
    deps.metrics?.syncRun(
      { trigger: options.trigger, outcome },
      (performance.now() - started) / 1000,
    );

  const since = connection.lastSyncedAt
    ? toDateString(addDays(connection.lastSyncedAt, -trailingWindowDays))
    : undefined;
  let snapshot: Awaited<ReturnType<typeof readConnection>>;
  try {
    snapshot = await withTimeout(
      readConnection(
        provider,
        {
          id: connection.id,
          externalId: connection.externalId,
          institution: connection.institution,
          status: connection.status,
          state: JSON.parse(connection.providerState),
          sealedSecret: connection.providerSecret,
          readSince: since,
        },
        since,
      ),
      providerTimeoutMs,
      `provider ${provider.name}`,
    );
  } catch (error) {
    const message = describeError(error);
    log.warn("sync failed: provider error", { error: message });
    // The provider failed: the connection shows `error` with the message (spec 3 vocabulary).
    const outcome = await deps.db.write(async (tx) => {
      const fresh = await getConnection(tx, connectionId);
      // A lapsed lease means another run took over (and recorded this one as interrupted).
      if (!(await holdsSyncLease(tx, connectionId, runId)))
        return { moved: false, status: fresh.status, retryAfterMs: undefined };
      // A real provider's typed error goes through the one status table (providers/errors.ts);
      // any other failure marks the connection `error` at once.
      const effect =
        error instanceof ProviderError
          ? statusAfterFailure(error, fresh)
          : { status: "error" as const, consecutiveFailures: fresh.consecutiveFailures + 1 };
      const moved = await moveConnectionStatus(tx, deps.clock, fresh, effect.status, message);
      const retryAfterMs = "retryAfterMs" in effect ? effect.retryAfterMs : undefined;
      await tx
        .update(tx.t.connections)
        .set({
          consecutiveFailures: effect.consecutiveFailures,
          ...(retryAfterMs ? { nextPullAt: new Date(startedAt.getTime() + retryAfterMs) } : {}),
        })
        .where(eq(tx.t.connections.id, connectionId));
      await finishRun(deps, tx, runId, {
        outcome: "failed",
        error: message,
        eventsRaised: moved ? 1 : 0,
      });
      await releaseSyncLease(tx, connectionId, runId);
      return { moved, status: effect.status, retryAfterMs };
    });
    if (outcome.moved) deps.outbox.notify();
    observe("failed");
    // A rate limit is no error: the answer says when the next pull is allowed.
    if (outcome.retryAfterMs) {
      return {
        connectionId,
        outcome: "too_soon",
        nextAllowedAt: new Date(startedAt.getTime() + outcome.retryAfterMs).toISOString(),
      };
    }
    return {
      connectionId,
      outcome: "failed",
      runId,
      status: outcome.status,
      error: message,
      eventsRaised: outcome.moved ? 1 : 0,
    };
  }

  try {
    const result = await deps.db.write(async (tx) => {
      if (!(await holdsSyncLease(tx, connectionId, runId)))
        throw new LeaseLost("the sync lease lapsed");
      const fresh = await getConnection(tx, connectionId);
      // A status set while the provider was read (svc sandbox set-status) wins over the read.
      const statusChangedMeanwhile = fresh.status !== connection.status;
      const fetchedAt = deps.clock.now();
      const applied = await applyConnectionSnapshot(
        tx,
        deps.clock,
        fresh,
        statusChangedMeanwhile
          ? { ...snapshot, status: fresh.status, error: fresh.error }
          : snapshot,
        { fetchedAt },
      );
      if (snapshot.accounts !== undefined) {
        await tx
          .update(tx.t.connections)
          .set({
            lastSyncedAt: fetchedAt,
            consecutiveFailures: 0,
            nextPullAt: provider.budget
              ? planPull({
                  budget: provider.budget,
                  now: fetchedAt,
                  spentAt: [],
                  wanted: ["balances", "recent_transactions"],
                }).nextAllowedAt
              : null,
          })
          .where(eq(tx.t.connections.id, connectionId));
      }
      await finishRun(deps, tx, runId, {
        outcome: "succeeded",
        newTransactions: applied.newTransactions,
        eventsRaised: applied.eventsRaised,
      });
      await releaseSyncLease(tx, connectionId, runId);
      return { ...applied, status: statusChangedMeanwhile ? fresh.status : snapshot.status };
    });
    if (result.eventsRaised > 0) deps.outbox.notify();
    for (const [reason, count] of Object.entries(snapshot.skipped ?? {}))
      deps.metrics?.providerRowsSkipped?.(provider.name, reason, count);
    observe("succeeded");
    log.info("sync finished", {
      newTransactions: result.newTransactions,
      eventsRaised: result.eventsRaised,
    });
    return {
      connectionId,
      outcome: "succeeded",
      runId,
      status: result.status,
      newTransactions: result.newTransactions,
      eventsRaised: result.eventsRaised,
    };
  } catch (error) {
    // Our own failure (not the provider's): nothing of this run was written; the run is
    // recorded as failed and the connection's status is left alone.
    const message = describeError(error);
    log.error("sync failed: could not store the data", { error });
    await deps.db.write(async (tx) => {
      await finishRun(deps, tx, runId, { outcome: "failed", error: message, eventsRaised: 0 });
      await releaseSyncLease(tx, connectionId, runId);
    });
    observe("failed");
    return {
      connectionId,
      outcome: "failed",
      runId,
      status: connection.status,
      error: message,
      eventsRaised: 0,
    };
  }
}

/**
 * Syncs every connection a provider can pull from, one after another. Scheduled runs skip
 * connections synced within their provider's minimum interval; `force` syncs them all.
 */
export async function syncAllConnections(
  deps: SyncDeps,
  options: SyncOptions,
  /** Told before each connection (progress on a TTY for `svc sync`). */
  onProgress?: (done: number, total: number) => void,
): Promise<SyncResult[]> {
  const providers = options.providers ?? deps.providers;
  const pullable = Object.keys(providers) as ConnectionRow["provider"][];
  if (pullable.length === 0) return [];
  const { connections } = deps.db.t;
  const ids = await deps.db
    .select({ id: connections.id })
    .from(connections)
    .where(inArray(connections.provider, pullable))
    .orderBy(connections.createdAt, connections.id);
  const results: SyncResult[] = [];
  for (const [index, { id }] of ids.entries()) {
    onProgress?.(index, ids.length);
    try {
      results.push(await syncConnection(deps, id, { ...options, providers }));
    } catch (error) {
      // Removed since the list was read: nothing to sync.
      if (error instanceof ApiError && error.code === "not_found") continue;
      throw error;
    }
  }
  return results;
}
