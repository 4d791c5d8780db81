// `svc serve` as a function: the HTTP server plus the background work, with an orderly stop.
import { ensureFirstOperator } from "./accounts/bootstrap.ts";
import type { CreatedAccount } from "./accounts/service-accounts.ts";
import { startConsentWarningWorker } from "./banking/consent-warnings.ts";
import { startRetentionWorker } from "./banking/retention.ts";
import { startSyncScheduler } from "./banking/scheduler.ts";
import { startHttpServer } from "./http/server.ts";
import { startMailWorker } from "./mail/start.ts";
import type { Services } from "./services.ts";
import { startWebhookWorkers } from "./webhooks/workers.ts";
import type { Worker } from "./worker.ts";

export interface RunningService {
  url: URL;
  /** Stop accepting, finish or release in-flight work, close the database. */
  stop(): Promise<void>;
}

/** How long a stop waits for requests under way, and for each worker (operator guide). */
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
  const server = startHttpServer(services, { isReady: () => ready });
  let firstOperator: Awaited<ReturnType<typeof ensureFirstOperator>>;
  try {
    firstOperator = await ensureFirstOperator(services.db, services.clock);
  } catch (error) {
    await server.stop(true);
    throw error;
  }
  if (config.unsafeAllowPrivateTargets) {
    log.warn(
      "SVC_UNSAFE_ALLOW_PRIVATE_TARGETS is on: webhook deliveries may reach loopback and private addresses on any port. Never use this in production.",
    );
  }
  const workers: Worker[] = [];
  // Started once the server listens, so a failed start leaves no timers behind.
  workers.push(startSyncScheduler(services), startRetentionWorker(services));
  // Stopped in reverse: the dispatcher first (it may queue mail), then the mail sender.
  const mail = startMailWorker(services);
  if (mail) workers.push(mail);
  workers.push(startConsentWarningWorker(services, { onMailQueued: () => mail?.wake() }));
  workers.push(startWebhookWorkers(services, { onMailQueued: () => mail?.wake() }));
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
