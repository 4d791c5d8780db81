// `svc endpoints recover` and `svc endpoints recovery`: the portal's Recover for operators and
// scripts. The recovery itself runs in `svc serve` (any instance); these start, follow and
// cancel it.
import type { Command } from "commander";
import type { Clock } from "../core/clock.ts";
import {
  cancelRecovery,
  getRecovery,
  listRecoveries,
  type RecoveryView,
  recoveredEventsPerDay,
  recoveriesPerDay,
  recoveryPacePerSecond,
  startRecovery,
} from "../webhooks/delivery-log/recovery.ts";
import { CliUsageError, withServices } from "./context.ts";
import type { CliIo } from "./io.ts";

const relative = /^(\d+)([mhd])$/;
const unitMs = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** TIME: an ISO 8601 date-time with its offset, or a span back from now (90m, 24h, 3d). */
function parseRecoveryTime(flag: string, value: string, clock: Clock): Date {
  const span = relative.exec(value.trim());
  if (span) {
    return new Date(
      clock.now().getTime() - Number(span[1]) * unitMs[span[2] as keyof typeof unitMs],
    );
  }
  const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
  const at = new Date(value);
  if (!iso.test(value.trim()) || Number.isNaN(at.getTime())) {
    throw new CliUsageError(
      `${flag}: give an ISO 8601 date-time with its offset (2026-11-25T08:00:00Z) or a span back from now (90m, 24h, 3d)`,
    );
  }
  return at;
}

function describeRecovery(r: RecoveryView): string {
  return [
    `recovery ${r.id} of endpoint ${r.endpointId}: ${r.status}${r.stopReason ? ` (${r.stopReason})` : ""}`,
    `  window          ${r.since} .. ${r.until}`,
    `  progress        ${r.sent}/${r.total} re-sent (at most ${r.pacePerSecond} a second)`,
    `  outcome         ${r.delivered} delivered, ${r.failed} failed, ${r.inFlight} in flight`,
    ...(r.unsent > 0
      ? [
          `  never sent      ${r.unsent} events of the window were raised while the endpoint was paused, disabled or unverified; they are not re-sent: read them from GET /v1/events`,
        ]
      : []),
  ].join("\n");
}

const isOver = (r: RecoveryView) => r.status !== "running" && r.inFlight === 0;

export function registerRecoveryCommands(endpoints: Command, io: CliIo): void {
  endpoints
    .command("recover")
    .argument("<id>", "endpoint id (active and verified)")
    .requiredOption("--since <time>", "start of the window: ISO 8601 or a span back (24h, 3d)")
    .option("--until <time>", "end of the window (default: now)")
    .option("--wait", "follow the progress until every re-sent delivery has an outcome")
    .description(
      `Re-send every event of a window whose delivery to the endpoint failed for good (retries used up) or was cut (the endpoint was disabled mid-retry), in creation order, as new manual deliveries (at most ${recoveryPacePerSecond} a second; ${recoveriesPerDay.limit} recoveries and ${recoveredEventsPerDay} events per account per day; one at a time per endpoint). Events never sent (endpoint paused, disabled or unverified) stay unsent and are counted: receivers read them from GET /v1/events. A running svc serve sends the rest.`,
    )
    .action(
      async (
        id: string,
        options: { since: string; until?: string; wait?: boolean },
        cmd: Command,
      ) => {
        await withServices(io, cmd, async (services, out) => {
          const since = parseRecoveryTime("--since", options.since, services.clock);
          const until =
            options.until !== undefined
              ? parseRecoveryTime("--until", options.until, services.clock)
              : undefined;
          let recovery = await startRecovery(
            services,
            { endpointId: id },
            { since, ...(until ? { until } : {}) },
          );
          if (options.wait) {
            out.note(describeRecovery(recovery));
            while (!isOver(recovery)) {
              await Bun.sleep(1_000);
              recovery = await getRecovery(services.db, {
                endpointId: id,
                recoveryId: recovery.id,
              });
              out.note(`  ${recovery.status}: ${recovery.sent}/${recovery.total} re-sent`);
            }
          }
          out.result(recovery, () =>
            [
              describeRecovery(recovery),
              ...(options.wait ? [] : [`Follow it with: svc endpoints recovery ${id}`]),
            ].join("\n"),
          );
        });
      },
    );

  endpoints
    .command("recovery")
    .argument("<id>", "endpoint id")
    .option("--cancel", "cancel the running recovery (deliveries not yet attempted are cancelled)")
    .description("Show the endpoint's recent recoveries with their progress, or cancel one.")
    .action(async (id: string, options: { cancel?: boolean }, cmd: Command) => {
      await withServices(io, cmd, async (services, out) => {
        if (options.cancel) {
          const cancelled = await cancelRecovery(services, { endpointId: id });
          out.result(cancelled, () => describeRecovery(cancelled));
          return;
        }
        const list = await listRecoveries(services.db, { endpointId: id });
        out.result(list, () =>
          list.length === 0 ? "no recoveries" : list.map(describeRecovery).join("\n"),
        );
      });
    });
}
