// `svc listen`: forward a running Svc's events to a local receiver while developing.
// Needs no data dir and no database: it talks to the server's /v1 API with an API key.
import { readFileSync } from "node:fs";
import tls, { type SecureContext } from "node:tls";
import type { Command } from "commander";
import { z } from "zod";
import { parseEventTypes } from "../api/events/query.ts";
import { isWellFormedApiKey } from "../keys/format.ts";
import { formatForwarded, ListenRefused, runListen } from "../listen/listen.ts";
import {
  ListenSecretError,
  listenSecretPath,
  loadOrCreateListenSecret,
} from "../listen/secret-file.ts";
import { trustContext } from "../net/trust.ts";
import { eventTypes } from "../webhooks/events/types.ts";
import { CliFailure, CliUsageError, globalOptions } from "./context.ts";
import type { CliIo } from "./io.ts";

const httpUrl = (flag: string) =>
  z.string().transform((text, ctx) => {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      ctx.addIssue({
        code: "custom",
        message: `--${flag} must be an http:// or https:// URL; got "${text}"`,
      });
      return z.NEVER;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      ctx.addIssue({
        code: "custom",
        message: `--${flag} must be an http:// or https:// URL; got "${text}"`,
      });
      return z.NEVER;
    }
    if (url.username || url.password) {
      ctx.addIssue({ code: "custom", message: `--${flag} must not carry a user name or password` });
      return z.NEVER;
    }
    return url;
  });

/** Names and addresses of this machine's loopback interface. */
function isLoopbackHost(hostname: string): boolean {
  return (
    hostname === "localhost" ||
    hostname.endsWith(".localhost") ||
    /^127(\.\d{1,3}){3}$/.test(hostname) ||
    hostname === "[::1]"
  );
}

const listenFlags = z.object({
  // The API key travels with every connection: in clear only over this machine's loopback.
  apiUrl: httpUrl("api-url").transform((url, ctx) => {
    if (url.protocol === "https:" || isLoopbackHost(url.hostname)) return url;
    ctx.addIssue({
      code: "custom",
      message: `--api-url must be https:// (the API key would travel in clear): plain http:// is allowed only to this machine (localhost, 127.0.0.1, [::1]); got ${url.origin}`,
    });
    return z.NEVER;
  }),
  apiKeyFile: z.string().min(1, "--api-key-file must name a file"),
  forwardTo: httpUrl("forward-to"),
  events: z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined) return [];
      const types = parseEventTypes(text);
      if (!types) {
        ctx.addIssue({
          code: "custom",
          message: `--events must be one or more of ${eventTypes.join(", ")}, separated by commas; got "${text}"`,
        });
        return z.NEVER;
      }
      return types;
    }),
  caFile: z.string().min(1).optional(),
  secretFile: z.string().min(1).optional(),
});

type RawListenFlags = {
  apiUrl?: string;
  apiKeyFile?: string;
  forwardTo?: string;
  events?: string;
  caFile?: string;
  secretFile?: string;
};

function parseFlags(raw: RawListenFlags) {
  const parsed = listenFlags.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CliUsageError(issue?.message ?? "invalid flags");
  }
  return parsed.data;
}

function readApiKey(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new CliUsageError(
      `--api-key-file ${file}: cannot be read (${(error as NodeJS.ErrnoException).code})`,
    );
  }
  const key = text.trim();
  if (!isWellFormedApiKey(key)) {
    throw new CliFailure(
      `${file} does not hold an API key (svk_ followed by 8 characters, _ and 43 characters); create one with \`svc keys create\` or in the portal`,
    );
  }
  return key;
}

function caTrust(file: string | undefined): { apiCa?: string[]; context?: SecureContext } {
  if (!file) return {};
  // Same checks and messages as the server's CA-file settings (deliveryCaFile, providerCaFile).
  const context = trustContext(file, "--ca-file");
  return {
    apiCa: [...tls.rootCertificates, readFileSync(file, "utf8")],
    ...(context ? { context } : {}),
  };
}

export function registerListen(program: Command, io: CliIo): void {
  program
    .command("listen")
    .description(
      "Forward a running Svc's events to a local URL while developing, signed like real deliveries with a listen secret per server (printed at start). Needs no data dir.",
    )
    .requiredOption(
      "--api-url <url>",
      "base URL of the Svc server, e.g. https://svc.example.com; http:// only to loopback (env SVC_API_URL)",
      io.env.SVC_API_URL,
    )
    .requiredOption("--api-key-file <file>", "file holding an API key of the account (svk_...)")
    .requiredOption(
      "--forward-to <url>",
      "where to POST each event, e.g. http://localhost:3000/webhooks (loopback allowed)",
    )
    .option("--events <types>", `only these event types, comma-separated: ${eventTypes.join(", ")}`)
    .option(
      "--ca-file <file>",
      "extra PEM CA certificates trusted for an https --api-url or --forward-to (env SVC_LISTEN_CA_FILE)",
      io.env.SVC_LISTEN_CA_FILE,
    )
    .option(
      "--secret-file <file>",
      "where the listen signing secret is kept, whatever the server (env SVC_LISTEN_SECRET_FILE; default one file per --api-url server under $XDG_CONFIG_HOME/svc/listen-secrets/ or ~/.config/svc/listen-secrets/)",
    )
    .addHelpText(
      "after",
      `
Each event is POSTed with Svc-Webhook-Id, Svc-Webhook-Timestamp and Svc-Webhook-Signature, signed
with the listen secret (whsec_...), which stays the same for this server on this machine: configure
your receiver with it once. One line per event: time, type, id, your receiver's status,
milliseconds. Only events written after the start are forwarded; after a lost connection the
missed ones follow; an event id is forwarded once per run. A webhook.verify event arrives with its
code masked: the code goes only to the endpoint's own URL. Stop with Ctrl-C (exit 0). A refused
API key (also one revoked while listening) ends it with exit 1; bad flags exit 2.

Example:
  svc listen --api-url http://127.0.0.1:8080 --api-key-file key.txt \\
    --forward-to http://localhost:3000/webhooks --events account.transactions.available`,
    )
    .action(async (raw: RawListenFlags, cmd: Command) => {
      const flags = parseFlags(raw);
      const apiKey = readApiKey(flags.apiKeyFile);
      const trust = caTrust(flags.caFile);
      const secretPath = flags.secretFile ?? listenSecretPath(io.env, flags.apiUrl);
      let secret: string;
      try {
        secret = loadOrCreateListenSecret(secretPath).secret;
      } catch (error) {
        if (error instanceof ListenSecretError) throw new CliFailure(error.message);
        throw error;
      }
      const json = Boolean(globalOptions(cmd).json);
      io.stderr(`Signing secret: ${secret} (kept in ${secretPath})\n`);
      io.stderr(
        `Forwarding ${flags.events.length > 0 ? flags.events.join(", ") : "all events"} to ${flags.forwardTo.href}; Ctrl-C to stop\n`,
      );
      const stop = new AbortController();
      void io.untilStopSignal().then(() => stop.abort());
      try {
        await runListen(
          {
            apiUrl: flags.apiUrl,
            apiKey,
            forwardTo: flags.forwardTo,
            types: flags.events,
            secret,
            apiCa: trust.apiCa,
            forwardSecureContext: trust.context,
          },
          {
            now: () => io.clock?.now() ?? new Date(),
            signal: stop.signal,
            notice: (line) => io.stderr(`${line}\n`),
            onForwarded: (event) => {
              io.stdout(
                json
                  ? `${JSON.stringify({
                      time: event.at.toISOString(),
                      type: event.type,
                      id: event.id,
                      status_code: event.result.statusCode,
                      error: event.result.error,
                      duration_ms: event.result.durationMs,
                    })}\n`
                  : `${formatForwarded(event)}\n`,
              );
            },
          },
        );
      } catch (error) {
        if (error instanceof ListenRefused) throw new CliFailure(error.message);
        throw error;
      }
      io.stderr("stopped\n");
    });
}
