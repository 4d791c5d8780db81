// `svc serve` as a function: the HTTP server plus the background work, with an orderly stop.
import { ensureFirstOperator } from "../accounts/bootstrap.ts";
import type { CreatedAccount } from "../accounts/service-accounts.ts";
import { startConsentWarningJob } from "../banking/consent-warnings.ts";
import { startSyncScheduler } from "../banking/scheduler.ts";
import { startProcessRegistry } from "../cluster/processes.ts";
import { configOriginLabel } from "../config/config.ts";
import type { BackgroundJob } from "../core/background-job.ts";
import { startBackgroundCheckpoints } from "../db/sqlite-checkpoints.ts";
import { startRetentionJob } from "../jobs/retention.ts";
import { startMailSender } from "../mail/start.ts";
import { startWebhookDispatcher } from "../webhooks/delivery/background.ts";
import { startRecoveryJob } from "../webhooks/delivery-log/recovery-steps.ts";
import { startHttpServer } from "./server.ts";
import type { Services } from "./services.ts";

export interface RunningService {
  url: URL;
  /** Stop accepting, finish or release in-flight work, close the database. */
  stop(): Promise<void>;
}

/** How long a stop waits for requests under way, and for each background job (operator guide). */
export const drainTimeoutMs = 10_000;

async function withDeadline(work: Promise<void>, timeoutMs: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([work.then(() => true as const), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

export interface StartOptions {
  /** Shows the first operator's one-time password; called before the service reports ready. */
  announceFirstOperator?: (created: CreatedAccount) => void;
}

export async function startService(
  services: Services,
  options: StartOptions = {},
): Promise<RunningService> {
  const { log, config } = services;
  // Everything that can refuse the start (a bad token file, read when the app is built; a port
  // in use; unreadable TLS files) comes before the first operator is created: otherwise its
  // one-time password, printed only by a successful start, would never be shown.
  // /readyz answers 503 until start-up has finished and again once stopping begins.
  let ready = false;
  // Registered first, and processes that are gone taken over before the server is ready, so a
  // restart after a kill -9 sends the deliveries the dead process held at once.
  let wakeDispatcher = () => {};
  const processes = await startProcessRegistry({
    database: services.database,
    clock: services.clock,
    log,
    onTakeover: () => wakeDispatcher(),
  });
  let server: ReturnType<typeof startHttpServer>;
  let firstOperator: Awaited<ReturnType<typeof ensureFirstOperator>>;
  try {
    await processes.sweep();
    server = startHttpServer(services, { isReady: () => ready, processId: processes.id });
  } catch (error) {
    await processes.stop();
    throw error;
  }
  try {
    firstOperator = await ensureFirstOperator(services.db, services.clock);
  } catch (error) {
    await server.stop(true);
    await processes.stop();
    throw error;
  }
  if (config.unsafeAllowPrivateTargets) {
    const source = configOriginLabel(config, "unsafeAllowPrivateTargets");
    log.warn(
      `unsafeAllowPrivateTargets is on (set by ${source}): webhook deliveries may reach loopback and private addresses on any port. Never use this in production.`,
      { source },
    );
  }
  // Stopped last: its stop removes this process's row once nothing of it is left.
  const workers: BackgroundJob[] = [processes];
  // SQLite: checkpoints in a worker thread, not inside a commit on the event loop; stopped after
  // every job that writes.
  workers.push(
    startBackgroundCheckpoints(services.database, {
      onFailure: (message) =>
        log.warn("background checkpoints stopped; the writer checkpoints by itself", {
          error: message,
        }),
    }),
  );
  // Started once the server listens, so a failed start leaves no timers behind.
  workers.push(startSyncScheduler(services), startRetentionJob(services));
  // Stopped in reverse: the dispatcher first (it may queue mail), then the mail sender.
  const mail = startMailSender(services);
  if (mail) workers.push(mail);
  const dispatcher = startWebhookDispatcher(services, {
    onMailQueued: () => mail?.wake(),
    processId: processes.id,
  });
  wakeDispatcher = dispatcher.wake;
  workers.push(dispatcher);
  workers.push(startConsentWarningJob(services, { onMailQueued: () => mail?.wake() }));
  // Stopped before the dispatcher: no step queues deliveries while it finishes.
  workers.push(
    startRecoveryJob({
      db: services.db,
      clock: services.clock,
      log: services.log.child({ worker: "recoveries" }),
      outbox: services.outbox,
    }),
  );
  log.info("listening", {
    listen: server.url.toString(),
    baseUrl: config.baseUrl,
    dataDir: config.dataDir,
    metrics: config.metricsTokenFile ? "/metrics (bearer token from metricsTokenFile)" : "off",
  });
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      ready = false;
      log.info("stopping");
      if (!(await withDeadline(server.stop(), drainTimeoutMs))) {
        log.warn("in-flight requests did not finish in time; closing their connections");
        await server.stop(true);
      }
      for (const worker of workers.reverse()) {
        if (!(await withDeadline(worker.stop(), drainTimeoutMs)))
          log.warn("worker did not stop in time", { worker: worker.name });
      }
      await services.database.close();
      log.info("stopped");
    })();
    return stopping;
  };
  if (firstOperator) options.announceFirstOperator?.(firstOperator);
  ready = true;
  return { url: server.url, stop };
}
