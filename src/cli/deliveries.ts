// `svc deliveries list`: the delivery log (every attempt with its time, status code or error
// class and duration; the next attempt of pending deliveries).
import type { Command } from "commander";
import { deliveryStatuses } from "../db/schema.ts";
import {
  type DeliveryView,
  listDeliveries,
  maxDeliveryListLimit,
} from "../webhooks/delivery-log/log.ts";
import { retryDeliveryNow } from "../webhooks/delivery-log/resend.ts";
import { CliUsageError, parseChoice, withServices } from "./context.ts";
import type { CliIo } from "./io.ts";

function describeDelivery(d: DeliveryView): string {
  const next = d.nextAttemptAt ? `  next attempt ${d.nextAttemptAt}` : "";
  const lines = [
    `delivery ${d.id}  ${d.status}${next}`,
    `  event ${d.eventId} (${d.eventType}, ${d.kind}${d.manual ? ", manual resend" : ""}) -> endpoint ${d.endpointId}`,
    ...d.attempts.map(
      (a) =>
        `  #${a.number}  ${a.at}  ${a.statusCode ?? "-"}  ${a.errorClass ?? a.outcome}  ${a.durationMs} ms${a.error ? `  ${a.error}` : ""}`,
    ),
  ];
  if (d.attempts.length === 0) lines.push("  (no attempt yet)");
  return lines.join("\n");
}

export function parseLimit(value: string | undefined, max: number): number | undefined {
  if (value === undefined) return undefined;
  const limit = Number(value);
  if (!Number.isInteger(limit) || limit < 1 || limit > max) {
    throw new CliUsageError(`--limit must be a whole number from 1 to ${max}; got "${value}"`);
  }
  return limit;
}

export function registerDeliveries(program: Command, io: CliIo): void {
  const group = program
    .command("deliveries")
    .description("The webhook delivery log: attempts, outcomes, next retry.");
  group
    .command("list")
    .description("List deliveries, newest first, with every attempt.")
    .option("--endpoint <id>", "only this endpoint's deliveries")
    .option("--event <id>", "only this event's deliveries")
    .option("--account <id>", "only this service account's deliveries")
    .option("--status <status>", deliveryStatuses.join("|"))
    .option("--limit <n>", `at most this many (default 100, max ${maxDeliveryListLimit})`)
    .action(async (options: Record<string, string | undefined>, cmd: Command) => {
      const status = parseChoice("status", options.status, deliveryStatuses);
      const limit = parseLimit(options.limit, maxDeliveryListLimit);
      await withServices(io, cmd, async (services, out) => {
        const list = await listDeliveries(services.db, {
          ...(options.endpoint ? { endpointId: options.endpoint } : {}),
          ...(options.event ? { eventId: options.event } : {}),
          ...(options.account ? { serviceAccountId: options.account } : {}),
          ...(status ? { status } : {}),
          ...(limit ? { limit } : {}),
        });
        out.result(list, () =>
          list.length === 0 ? "(no deliveries)" : list.map(describeDelivery).join("\n\n"),
        );
      });
    });
  group
    .command("retry")
    .argument("<id>", "delivery id (pending, waiting for its next retry)")
    .description("Bring a pending delivery's next attempt forward to now.")
    .action(async (id: string, _options: unknown, cmd: Command) => {
      await withServices(io, cmd, async (services, out) => {
        const delivery = await retryDeliveryNow(services, { deliveryId: id });
        out.result(delivery, () => describeDelivery(delivery));
      });
    });
}
