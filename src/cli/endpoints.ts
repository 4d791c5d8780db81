// `svc endpoints ...`: the portal's endpoint actions for operators and scripts. Each command
// parses, calls one feature function from src/webhooks, and prints.
import type { Command } from "commander";
import { ApiError } from "../core/errors.ts";
import { withWebhookContext } from "../webhooks/delivery/context.ts";
import type { OneOffSendView } from "../webhooks/delivery/one-off-send.ts";
import { testEndpoint } from "../webhooks/delivery/test-send.ts";
import { sendVerificationCode, verifyEndpoint } from "../webhooks/delivery/verification.ts";
import { resendEvent, resendLimit } from "../webhooks/delivery-log/resend.ts";
import { type EndpointView, listEndpoints } from "../webhooks/endpoints/records.ts";
import {
  type EndpointWithSecret,
  registerEndpoint,
  rotateEndpointSecret,
  updateEndpoint,
} from "../webhooks/endpoints/registration.ts";
import {
  enableEndpoint,
  pauseEndpoint,
  removeEndpoint,
  resumeEndpoint,
} from "../webhooks/endpoints/state.ts";
import { type EventTypeFilter, parseEventTypeFilter } from "../webhooks/events/event-filter.ts";
import { accountEventTypes } from "../webhooks/events/types.ts";
import { CliFailure, CliUsageError, withServices } from "./context.ts";
import type { CliIo } from "./io.ts";
import { formatTable } from "./output.ts";
import { registerRecoveryCommands } from "./recover.ts";

function describeEndpoint(endpoint: EndpointView): string {
  return [
    `endpoint ${endpoint.id}`,
    `  url             ${endpoint.url}`,
    `  description     ${endpoint.description ?? "-"}`,
    `  state           ${endpoint.status}${endpoint.verified ? "" : " (unverified: only test and verification sends)"}`,
    `  verified        ${endpoint.verifiedAt ?? "no"}`,
    `  failure count   ${endpoint.failureCount}`,
    `  event types     ${endpoint.eventTypes === null ? "all" : endpoint.eventTypes.join(", ")} (webhook.verify and webhook.test always)`,
    ...(endpoint.disabledAt
      ? [`  disabled        ${endpoint.disabledAt}: ${endpoint.disabledReason}`]
      : []),
  ].join("\n");
}

const eventsHelp = `comma-separated account event types to receive, or "all" (default): ${accountEventTypes.join(", ")}; webhook.verify and webhook.test always arrive`;

/** --events: "all" = every type (null); otherwise a comma list, checked here so a typo exits 2. */
function parseEventsFlag(value: string | undefined): EventTypeFilter | undefined {
  if (value === undefined) return undefined;
  if (value.trim() === "all") return null;
  try {
    return parseEventTypeFilter(value.split(","));
  } catch (error) {
    if (error instanceof ApiError) throw new CliUsageError(`--events: ${error.message}`);
    throw error;
  }
}

/** Exit 1 when the receiver did not accept a test or verification send with a 2xx, saying why. */
function failUnlessAccepted(result: OneOffSendView): void {
  if (result.ok) return;
  const why =
    result.statusCode !== null
      ? `it answered HTTP ${result.statusCode}${result.errorClass === "redirect" ? " (redirects are not followed)" : ""}`
      : `${result.errorClass}: ${result.error}`;
  throw new CliFailure(
    `the receiver did not accept the ${result.type} (a 2xx within 10 s is needed): ${why}`,
  );
}

function describeSecret(result: EndpointWithSecret): string {
  return [
    describeEndpoint(result.endpoint),
    `  signing secret  ${result.signingSecret}`,
    "The signing secret is shown only now: store it with your receiver. Only its hash is kept.",
  ].join("\n");
}

function describeSend(result: OneOffSendView): string {
  const answer = result.statusCode === null ? "no answer" : `HTTP ${result.statusCode}`;
  return [
    `${result.type} sent to endpoint ${result.endpointId}: ${result.ok ? "delivered" : "failed"}`,
    `  response        ${answer} in ${result.responseTimeMs} ms`,
    ...(result.ok ? [] : [`  error           ${result.errorClass}: ${result.error}`]),
    `  event           ${result.eventId}`,
  ].join("\n");
}

export function registerEndpoints(program: Command, io: CliIo): void {
  const endpoints = program
    .command("endpoints")
    .description(
      "Webhook endpoints: add, verify, test, rotate the secret, enable, pause, remove, recover.",
    )
    .addHelpText(
      "after",
      `
An endpoint receives account events only once it is verified (send-code, then verify with the
code its receiver got) and while it is active. After 20 failed deliveries in a row it is
disabled and its owner e-mailed; enable it again once the receiver is fixed.`,
    );

  endpoints
    .command("add")
    .description(
      "Register an HTTPS endpoint (port 443, public address); prints its signing secret once.",
    )
    .requiredOption("--account <id>", "service account that owns the endpoint")
    .requiredOption("--url <url>", "https:// URL of the receiver")
    .option("--description <text>", "what the endpoint is for (useful with more than one)")
    .option("--events <types>", eventsHelp)
    .action(
      async (
        options: { account: string; url: string; description?: string; events?: string },
        cmd: Command,
      ) => {
        const eventTypes = parseEventsFlag(options.events);
        await withServices(io, cmd, (services, out) =>
          withWebhookContext(services, async (ctx) => {
            const result = await registerEndpoint(ctx, {
              serviceAccountId: options.account,
              url: options.url,
              ...(options.description !== undefined ? { description: options.description } : {}),
              ...(eventTypes !== undefined ? { eventTypes } : {}),
            });
            out.result(result, () =>
              [describeSecret(result), `Next: svc endpoints send-code ${result.endpoint.id}`].join(
                "\n",
              ),
            );
          }),
        );
      },
    );

  endpoints
    .command("list")
    .description("List an account's endpoints with state, verification and failure count.")
    .requiredOption("--account <id>", "service account")
    .action(async (options: { account: string }, cmd: Command) => {
      await withServices(io, cmd, async (services, out) => {
        const list = await listEndpoints(services.db, options.account);
        out.result(list, () =>
          formatTable(
            ["ID", "URL", "STATE", "VERIFIED", "FAILURES", "DISABLED", "DESCRIPTION"],
            list.map((e) => [
              e.id,
              e.url,
              e.status,
              e.verified ? "yes" : "no",
              e.failureCount,
              e.disabledAt ? `${e.disabledAt} (${e.disabledReason})` : null,
              e.description,
            ]),
          ),
        );
      });
    });

  endpoints
    .command("update")
    .argument("<id>", "endpoint id")
    .description("Change which event types an endpoint receives, or its description.")
    .option("--events <types>", eventsHelp)
    .option("--description <text>", "new description (empty to clear)")
    .action(
      async (id: string, options: { events?: string; description?: string }, cmd: Command) => {
        const eventTypes = parseEventsFlag(options.events);
        if (eventTypes === undefined && options.description === undefined) {
          throw new CliUsageError("nothing to change: give --events and/or --description");
        }
        await withServices(io, cmd, async (services, out) => {
          const endpoint = await updateEndpoint(
            services,
            { endpointId: id },
            {
              ...(eventTypes !== undefined ? { eventTypes } : {}),
              ...(options.description !== undefined ? { description: options.description } : {}),
            },
          );
          out.result(endpoint, () => describeEndpoint(endpoint));
        });
      },
    );

  endpoints
    .command("resend")
    .argument("<endpoint-id>", "endpoint id (active and verified)")
    .argument("<event-id>", "a past account event of the endpoint's account, within retention")
    .description(
      `Send a past event to the endpoint again now, as a new manual delivery (at most ${resendLimit.limit} per hour per account).`,
    )
    .action(async (endpointId: string, eventId: string, _options: unknown, cmd: Command) => {
      await withServices(io, cmd, async (services, out) => {
        const delivery = await resendEvent(services, { endpointId }, eventId);
        out.result(delivery, () =>
          [
            `event ${delivery.eventId} queued again for endpoint ${delivery.endpointId} as delivery ${delivery.id} (manual)`,
            "A running `svc serve` sends it within a second; follow it with: svc deliveries list --endpoint ID",
          ].join("\n"),
        );
      });
    });

  registerRecoveryCommands(endpoints, io);

  endpoints
    .command("send-code")
    .argument("<id>", "endpoint id")
    .description("Send a webhook.verify event with a new 8-character code (valid 1 hour, 5 tries).")
    .action(async (id: string, _options: unknown, cmd: Command) => {
      await withServices(io, cmd, (services, out) =>
        withWebhookContext(services, async (ctx) => {
          const result = await sendVerificationCode(ctx, { endpointId: id });
          out.result(result, () =>
            [
              describeSend(result),
              ...(result.ok
                ? [
                    "Read the code from the event your receiver got, then: svc endpoints verify ID CODE",
                  ]
                : []),
            ].join("\n"),
          );
          failUnlessAccepted(result);
        }),
      );
    });

  endpoints
    .command("verify")
    .argument("<id>", "endpoint id")
    .argument("<code>", "the code from the webhook.verify event")
    .description(
      "Verify an endpoint with the code its receiver got; account events then flow to it.",
    )
    .action(async (id: string, code: string, _options: unknown, cmd: Command) => {
      await withServices(io, cmd, async (services, out) => {
        const endpoint = await verifyEndpoint(services, { endpointId: id }, code);
        out.result(endpoint, () => describeEndpoint(endpoint));
      });
    });

  endpoints
    .command("test")
    .argument("<id>", "endpoint id")
    .description(
      "Send one webhook.test event (also to unverified endpoints); shows status and time.",
    )
    .action(async (id: string, _options: unknown, cmd: Command) => {
      await withServices(io, cmd, (services, out) =>
        withWebhookContext(services, async (ctx) => {
          const result = await testEndpoint(ctx, { endpointId: id });
          out.result(result, () => describeSend(result));
          failUnlessAccepted(result);
        }),
      );
    });

  endpoints
    .command("rotate-secret")
    .argument("<id>", "endpoint id")
    .description("Issue a new signing secret (printed once); the old one stops verifying at once.")
    .action(async (id: string, _options: unknown, cmd: Command) => {
      await withServices(io, cmd, async (services, out) => {
        const result = await rotateEndpointSecret(services, { endpointId: id });
        out.result(result, () => describeSecret(result));
      });
    });

  const stateCommands = [
    [
      "enable",
      "Enable a disabled endpoint: clears the failure count; nothing is replayed.",
      enableEndpoint,
    ],
    [
      "pause",
      "Pause: nothing is sent; events raised while paused are never delivered.",
      pauseEndpoint,
    ],
    ["resume", "Resume a paused endpoint.", resumeEndpoint],
  ] as const;
  for (const [name, description, change] of stateCommands) {
    endpoints
      .command(name)
      .argument("<id>", "endpoint id")
      .description(description)
      .action(async (id: string, _options: unknown, cmd: Command) => {
        await withServices(io, cmd, async (services, out) => {
          const endpoint = await change(services.db, services.clock, { endpointId: id });
          out.result(endpoint, () => describeEndpoint(endpoint));
        });
      });
  }

  endpoints
    .command("remove")
    .argument("<id>", "endpoint id")
    .description("Remove an endpoint with its delivery log.")
    .action(async (id: string, _options: unknown, cmd: Command) => {
      await withServices(io, cmd, async (services, out) => {
        const result = await removeEndpoint(services.db, { endpointId: id });
        out.result(result, `endpoint ${result.id} removed`);
      });
    });
}
