// `svc dev`: `svc serve` for a developer's own machine, so registering, verifying, Test, Resend
// and the delivery log work against a receiver on localhost. It issues a local CA (kept in the
// data dir), trusts it for deliveries only, lets deliveries reach loopback and private addresses
// on any port, and prints what the receiver kit needs. Never for production: spec 4 requires
// public HTTPS targets on 443, which this mode deliberately does not enforce.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { ensureDevCertificates } from "../dev/local-ca.ts";
import { configFor } from "./context.ts";
import type { CliIo } from "./io.ts";
import { addServeFlags, runServe, serveFlags } from "./serve.ts";

/** Where `svc dev` keeps its CA and the receiver certificate, inside the data dir. */
const devDirectoryName = "dev-ca";
const receiverPort = 3000;

function banner(info: {
  baseUrl: string;
  caFile: string;
  certFile: string;
  keyFile: string;
}): string {
  const line = "!".repeat(78);
  const receiverUrl = `https://localhost:${receiverPort}/webhooks`;
  return [
    "",
    line,
    "!! DEVELOPMENT MODE: never run `svc dev` in production, nor on a machine others use.",
    "!! Webhook deliveries may reach loopback and private addresses on any port, and trust",
    "!! the local CA below. Production is `svc serve` (operator guide).",
    line,
    "",
    `Local CA (trusted for deliveries only)  ${info.caFile}`,
    `Receiver certificate (localhost, 127.0.0.1, ::1)`,
    `  TLS_CERT_FILE=${info.certFile}`,
    `  TLS_KEY_FILE=${info.keyFile}`,
    "",
    "The receiver kit (portal: Receiver kit; examples/receiver) runs with:",
    `  SVC_API_BASE=${info.baseUrl}/v1`,
    "  SVC_API_KEY=<an API key: portal, API keys>",
    "  SVC_WEBHOOK_SECRET=<the whsec_... shown when you add the endpoint>",
    `  PORT=${receiverPort} TLS_CERT_FILE=${info.certFile} \\`,
    `  TLS_KEY_FILE=${info.keyFile} bun receiver.ts`,
    "",
    `Then add the endpoint ${receiverUrl} in the portal (Webhooks) or with`,
    `  svc endpoints add --account ID --url ${receiverUrl}`,
    "send the verification code, enter it, press Test; connect the sandbox bank and use",
    "Simulate activity (or `svc sandbox trigger`) for account events, and Resend from the log.",
    "Without a server-side endpoint at all: `svc listen` forwards events to a local URL.",
    "",
  ].join("\n");
}

export function registerDev(program: Command, io: CliIo): void {
  const command = program
    .command("dev")
    .description(
      "Development mode (NEVER in production): `svc serve` plus a local CA trusted for deliveries and loopback targets on any port, for a receiver on this machine.",
    )
    .addHelpText(
      "after",
      `
Issues (once) a local CA and a certificate for localhost, 127.0.0.1 and ::1 in
<data dir>/${devDirectoryName}/, then serves as \`svc serve --unsafe-allow-private-targets
--delivery-ca-file <data dir>/${devDirectoryName}/ca.pem\` would (a deliveryCaFile of your own
stays trusted beside it), and prints the settings the receiver kit needs. Takes every flag of
\`svc serve\`.`,
    );
  addServeFlags(command);
  command.action(async (options: Record<string, string | boolean | undefined>, cmd: Command) => {
    const flags = serveFlags(options);
    const config = configFor(io, cmd, flags, { ownSettings: true });
    mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
    const certificates = ensureDevCertificates(
      join(config.dataDir, devDirectoryName),
      io.clock?.now() ?? new Date(),
    );
    // A deliveryCaFile of the developer's own stays trusted: both go into one bundle.
    let trusted = certificates.caFile;
    if (config.deliveryCaFile) {
      trusted = join(config.dataDir, devDirectoryName, "delivery-trust.pem");
      writeFileSync(
        trusted,
        `${readFileSync(certificates.caFile, "utf8")}\n${readFileSync(config.deliveryCaFile, "utf8")}`,
        { mode: 0o644 },
      );
    }
    await runServe(
      io,
      cmd,
      { ...flags, unsafeAllowPrivateTargets: true, deliveryCaFile: trusted },
      {
        onListening: (services) =>
          io.stdout(banner({ baseUrl: services.config.baseUrl, ...certificates })),
      },
    );
  });
}
