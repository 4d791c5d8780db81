import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { openServices } from "../server/services.ts";
import { applySetup, currentSetup, type SetupAnswers, type SetupResult } from "../setup/apply.ts";
import { CliUsageError, globalOptions, outputFor } from "./context.ts";
import type { CliIo } from "./io.ts";

interface SetupFlags {
  baseUrl?: string;
  sourceIp?: string;
  adminEmail?: string;
  adminPasswordFile?: string;
  yes?: boolean;
}

function readPasswordFile(io: CliIo, path: string): string {
  try {
    // One trailing newline is how editors and `echo` end files; it is not part of the password.
    return readFileSync(resolve(io.cwd, path), "utf8").replace(/\r?\n$/, "");
  } catch (error) {
    throw new CliUsageError(
      `--admin-password-file ${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? error})`,
    );
  }
}

export function registerSetup(program: Command, io: CliIo): void {
  program
    .command("setup")
    .description(
      "Configure this instance: base URL, delivery source IP, data dir and the operator account.",
    )
    .option("--base-url <url>", "public base URL, e.g. https://bank-api.example.com")
    .option("--source-ip <ip>", "the fixed address webhook deliveries come from")
    .option("--admin-email <email>", "operator e-mail for the portal")
    .option(
      "--admin-password-file <file>",
      "file holding the operator password (no password on the command line)",
    )
    .option(
      "-y, --yes",
      "do not ask: use the flags; a setting not given keeps its value in svc.json (or its default)",
    )
    .addHelpText(
      "after",
      `
Interactive in a terminal. For automation pass --yes with the flags, for example:
  svc setup --yes --data-dir /var/lib/svc --base-url https://bank-api.example.com \\
    --source-ip 203.0.113.10 --admin-email ops@example.com --admin-password-file /run/secrets/svc-admin
Without --admin-password-file a one-time password is generated and printed once.
Writes <data dir>/svc.json (mode 0600) and <data dir>/master.key (mode 0600), then migrates.
Run again, it keeps every setting it is not given and prints the ones it changed.`,
    )
    .action(async (flags: SetupFlags, cmd: Command) => {
      const global = globalOptions(cmd);
      const out = outputFor(io, cmd);
      const given = {
        dataDir: global.dataDir ?? io.env.SVC_DATA_DIR ?? "./data",
        ...(flags.baseUrl !== undefined ? { baseUrl: flags.baseUrl } : {}),
        ...(flags.sourceIp !== undefined ? { sourceIp: flags.sourceIp } : {}),
        ...(flags.adminEmail !== undefined ? { adminEmail: flags.adminEmail } : {}),
        ...(flags.adminPasswordFile !== undefined
          ? { adminPassword: readPasswordFile(io, flags.adminPasswordFile) }
          : {}),
      };
      const anyFlag = [
        flags.baseUrl,
        flags.sourceIp,
        flags.adminEmail,
        flags.adminPasswordFile,
      ].some((v) => v !== undefined);
      let answers: SetupAnswers;
      if (flags.yes || anyFlag) {
        const missing = flags.yes
          ? []
          : (["baseUrl", "adminEmail"] as const).filter((key) => given[key] === undefined);
        if (missing.length > 0) {
          throw new CliUsageError(
            `svc setup without --yes needs ${missing.map((m) => (m === "baseUrl" ? "--base-url" : "--admin-email")).join(" and ")} (or run it in a terminal to be asked)`,
          );
        }
        answers = given;
      } else if (io.interactive) {
        const current = currentSetup(resolve(io.cwd, given.dataDir));
        // Loaded here: the prompt library is not part of any other command's start.
        const { askSetupAnswers } = await import("../setup/wizard.ts");
        answers = await askSetupAnswers(
          { ...current, ...given },
          {
            ...(io.input ? { input: io.input } : {}),
            ...(io.output ? { output: io.output } : {}),
          },
        );
      } else {
        throw new CliUsageError(
          "svc setup has no terminal to ask its questions on; pass --yes with --base-url, --source-ip, --admin-email and --admin-password-file (see svc setup --help)",
        );
      }
      const result = await applySetup(answers, {
        env: io.env,
        cwd: io.cwd,
        clock: io.clock,
        open: openServices,
      });
      out.result(result, () =>
        [
          "Svc is set up.",
          `  config      ${result.configFile}`,
          `  master key  ${result.masterKey} (back it up with the database: svc backup DIR)`,
          `  database    ${result.database}`,
          `  base URL    ${result.baseUrl}`,
          `  source IP   ${result.deliverySourceIp ?? "(not set)"}`,
          `  operator    ${result.operator.email}${result.operator.created ? " (created)" : " (existing; password updated if given)"}`,
          ...(result.operator.oneTimePassword
            ? [
                `  password    ${result.operator.oneTimePassword}  (one-time: shown only now, change it at first sign-in)`,
              ]
            : []),
          ...changeLines(result),
          ...result.notes.map((note) => `note: ${note}`),
          "",
          ...nextSteps(result, answers.dataDir),
        ].join("\n"),
      );
    });
}

function changeLines(result: SetupResult): string[] {
  if (result.changed.length === 0)
    return ["svc.json: nothing changed (settings not given keep their values)"];
  return [
    "changed in svc.json (settings not given keep their values):",
    ...result.changed.map(
      (change) => `  ${change.key}: ${change.from ?? "(not set)"} -> ${change.to ?? "(not set)"}`,
    ),
  ];
}

/** Whether a browser at the base URL reaches the listener directly (no proxy, no TLS needed). */
function servedDirectly(baseUrl: string, listenUrl: string): boolean {
  const base = new URL(baseUrl);
  const listen = new URL(listenUrl);
  const loopbackNames = ["localhost", "127.0.0.1", "[::1]"];
  const sameHost =
    base.hostname === listen.hostname ||
    (loopbackNames.includes(base.hostname) && loopbackNames.includes(listen.hostname));
  return sameHost && base.protocol === listen.protocol && base.port === listen.port;
}

function nextSteps(result: SetupResult, dataDir: string): string[] {
  const lines = [
    "Next:",
    `  svc serve --data-dir ${dataDir}`,
    `    (from a clone of the repository: npx bun run svc serve --data-dir ${dataDir})`,
    `  It listens on ${result.listenUrl.startsWith("https:") ? "HTTPS" : "plain HTTP"} at ${result.listenUrl} (set host and port in svc.json, SVC_HOST/SVC_PORT or --host/--port).`,
  ];
  if (servedDirectly(result.baseUrl, result.listenUrl)) {
    lines.push(`  Then open ${result.baseUrl}/ and sign in as ${result.operator.email}.`);
  } else {
    lines.push(
      `  The base URL ${result.baseUrl} is not that address: put a reverse proxy in front of it`,
      `  that answers at ${result.baseUrl} and forwards to ${result.listenUrl}${result.listenUrl.startsWith("https:") ? "" : ", or set tlsCertFile and tlsKeyFile so it serves HTTPS itself"}`,
      "  (operator guide: TLS and the base URL).",
      `  Then open ${result.baseUrl}/ and sign in as ${result.operator.email}.`,
    );
  }
  return lines;
}
