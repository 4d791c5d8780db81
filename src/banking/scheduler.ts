// The sync schedule: croner runs every pullable connection's sync on
// config.syncSchedule (default every 15 minutes); each provider's minimum interval still
// applies, and the sync lease keeps a connection from syncing twice at once even when the CLI
// syncs it meanwhile.
import { Cron } from "croner";
import type { Config } from "../config/config.ts";
import type { BackgroundJob } from "../core/background-job.ts";
import { claimScheduledRun, halfInterval } from "../scheduling/scheduled-runs.ts";
import type { ProviderRegistry } from "./provider.ts";
import { type SyncDeps, syncAllConnections } from "./sync.ts";

/** One scheduled pass over every connection, as the scheduler runs it. */
export async function runScheduledSync(
  services: SyncDeps,
  providers?: ProviderRegistry,
): Promise<void> {
  const results = await syncAllConnections(services, {
    trigger: "schedule",
    providers,
  });
  const count = (outcome: string) => results.filter((r) => r.outcome === outcome).length;
  if (results.length > 0) {
    services.log.info("scheduled sync pass", {
      connections: results.length,
      succeeded: count("succeeded"),
      failed: count("failed"),
      busy: count("busy"),
      tooSoon: count("too_soon"),
    });
  }
}

/** A sync's dependencies, with the configuration (its syncSchedule) required. */
export interface SyncSchedulerDeps extends SyncDeps {
  config: Config;
}

export function startSyncScheduler(
  services: SyncSchedulerDeps,
  providers?: ProviderRegistry,
): BackgroundJob {
  let running: Promise<void> = Promise.resolve();
  // protect: a pass still running when the next tick comes is not overlapped.
  const job: Cron = new Cron(services.config.syncSchedule, { protect: true }, () => {
    running = (async () => {
      // Once per tick across every instance sharing the database.
      const now = services.clock.now();
      if (!(await claimScheduledRun(services.db, "sync", now, halfInterval(job)))) return;
      await runScheduledSync(services, providers);
    })().catch((error) => {
      services.log.error("scheduled sync pass failed", { error });
    });
    return running;
  });
  return {
    name: "sync-scheduler",
    async stop() {
      job.stop();
      await running;
    },
  };
}
