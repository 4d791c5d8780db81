import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import { applySetup, type SetupAnswers } from "../setup/apply.ts";
import { askSetupAnswers } from "../setup/wizard.ts";
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
    .option("-y, --yes", "do not ask: use the flags, and defaults for anything not given")
    .addHelpText(
      "after",
      `
Interactive in a terminal. For automation pass --yes with the flags, for example:
  svc setup --yes --data-dir /var/lib/svc --base-url https://bank-api.example.com \\
    --source-ip 203.0.113.10 --admin-email ops@example.com --admin-password-file /run/secrets/svc-admin
Without --admin-password-file a one-time password is generated and printed once.
Writes <data dir>/svc.json (mode 0600) and <data dir>/master.key (mode 0600), then migrates.`,
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
        answers = { baseUrl: "http://localhost:8080", adminEmail: "admin@svc.localhost", ...given };
      } else if (io.interactive) {
        answers = await askSetupAnswers(given, {
          ...(io.input ? { input: io.input } : {}),
          ...(io.output ? { output: io.output } : {}),
        });
      } else {
        throw new CliUsageError(
          "svc setup has no terminal to ask its questions on; pass --yes with --base-url, --source-ip, --admin-email and --admin-password-file (see svc setup --help)",
        );
      }
      const result = await applySetup(answers, {
        env: io.env,
        cwd: io.cwd,
        ...(io.clock ? { clock: io.clock } : {}),
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
          ...result.notes.map((note) => `note: ${note}`),
          "",
          "Next:",
          `  svc serve --data-dir ${answers.dataDir}`,
          `  then open ${result.baseUrl}/ and sign in as ${result.operator.email}`,
        ].join("\n"),
      );
    });
}
