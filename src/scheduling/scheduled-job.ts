// A job of `svc serve` on a cron schedule that runs once per tick across every instance sharing
// the database (scheduled-runs.ts); a failed run is logged and the next tick runs again.
import { Cron } from "croner";
import type { BackgroundJob } from "../core/background-job.ts";
import type { Clock } from "../core/clock.ts";
import type { Db } from "../db/store.ts";
import type { Logger } from "../log/log.ts";
import { claimScheduledRun, halfInterval } from "./scheduled-runs.ts";

/** What a scheduled job needs besides its own run: the claim's database and clock, and a log. */
export interface ScheduledJobDeps {
  db: Db;
  clock: Clock;
  log: Logger;
}

export function startScheduledJob(
  deps: ScheduledJobDeps,
  job: { name: string; schedule: string; run: () => Promise<void> },
): BackgroundJob {
  let running: Promise<void> = Promise.resolve();
  // protect: a run still going when the next tick comes is not overlapped.
  const cron: Cron = new Cron(job.schedule, { protect: true }, () => {
    running = (async () => {
      try {
        const now = deps.clock.now();
        if (!(await claimScheduledRun(deps.db, job.name, now, halfInterval(cron)))) return;
        await job.run();
      } catch (error) {
        deps.log.error(`${job.name} job failed`, { error });
      }
    })();
    return running;
  });
  return {
    name: job.name,
    async stop() {
      cron.stop();
      await running;
    },
  };
}
