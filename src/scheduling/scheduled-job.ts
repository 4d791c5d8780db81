// A job of `svc serve` on a cron schedule that runs once per tick across every instance sharing
// the database (scheduled-runs.ts); a failed run is logged and the next tick runs again.
import { Cron } from "croner";
import type { BackgroundJob } from "../core/background-job.ts";
import type { Services } from "../server/services.ts";
import { claimScheduledRun, halfInterval } from "./scheduled-runs.ts";

export function startScheduledJob(
  services: Pick<Services, "db" | "clock" | "log">,
  job: { name: string; schedule: string; run: () => Promise<void> },
): BackgroundJob {
  let running: Promise<void> = Promise.resolve();
  // protect: a run still going when the next tick comes is not overlapped.
  const cron: Cron = new Cron(job.schedule, { protect: true }, () => {
    running = (async () => {
      try {
        const now = services.clock.now();
        if (!(await claimScheduledRun(services.db, job.name, now, halfInterval(cron)))) return;
        await job.run();
      } catch (error) {
        services.log.error(`${job.name} job failed`, { error });
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
