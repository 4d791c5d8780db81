// What `svc setup` does once its answers are known (the wizard and the flags both end here).
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { networkInterfaces } from "node:os";
import { join, resolve } from "node:path";
import { asc, eq } from "drizzle-orm";
import ipaddr from "ipaddr.js";
import { ensureFirstOperator } from "../accounts/bootstrap.ts";
import { passwordProblem } from "../accounts/passwords.ts";
import { emailSchema } from "../accounts/service-accounts.ts";
import { findUserByEmail, setUserPassword } from "../accounts/users.ts";
import {
  type Config,
  ConfigError,
  configFileName,
  loadConfig,
  validateConfigValue,
} from "../config/config.ts";
import type { Clock } from "../core/clock.ts";
import { ApiError } from "../core/errors.ts";
import { type MasterKey, masterKeyPath } from "../crypto/master-key.ts";
import { type Database, type Db, first } from "../db/store.ts";
import { type Logger, silentLogger } from "../log/log.ts";

/**
 * What `svc setup` was told. A setting left out keeps what svc.json already holds (a re-run of
 * `setup --yes` must not put a real install's base URL back to localhost); `sourceIp: null`
 * removes the source address (the wizard's empty answer).
 */
export interface SetupAnswers {
  dataDir: string;
  baseUrl?: string;
  sourceIp?: string | null;
  /** Omitted: the existing first operator, or admin@svc.localhost on a new install. */
  adminEmail?: string;
  /** Omit to generate a one-time password (printed once). */
  adminPassword?: string;
}

export interface SetupResult {
  configFile: string;
  masterKey: string;
  database: string;
  baseUrl: string;
  deliverySourceIp?: string;
  operator: { email: string; created: boolean; oneTimePassword?: string };
  /** The settings of svc.json this run changed, with their old and new values. */
  changed: SettingChange[];
  /** Where `svc serve` will listen with these settings (plain HTTP unless the TLS files are set). */
  listenUrl: string;
  notes: string[];
}

export interface SettingChange {
  key: "baseUrl" | "deliverySourceIp";
  from: string | null;
  to: string | null;
}

/** What setup uses of the instance it opens: the database, the clock and the key's source. */
export interface SetupInstance {
  db: Db;
  clock: Clock;
  masterKey: Pick<MasterKey, "source">;
  database: Pick<Database, "location" | "close">;
}

/** Opens the configured instance, migrating its database (the CLI passes openServices). */
export type OpenSetupInstance = (
  config: Config,
  options: { env: Record<string, string | undefined>; log: Logger; clock?: Clock },
) => Promise<SetupInstance>;

/** The first operator's e-mail on a new install when setup is not given one. */
const defaultOperatorEmail = "admin@svc.localhost";

/** Problems with the answers, by field; empty when they can be applied. */
function checkSetupAnswers(answers: SetupAnswers): Record<string, string> {
  const problems: Record<string, string> = {};
  if (answers.baseUrl !== undefined) {
    const baseUrl = validateConfigValue("baseUrl", answers.baseUrl);
    if (baseUrl) problems.baseUrl = `base URL ${baseUrl}`;
  }
  if (typeof answers.sourceIp === "string") {
    const ip = validateConfigValue("deliverySourceIp", answers.sourceIp);
    if (ip) problems.sourceIp = `delivery source IP ${ip}`;
  }
  if (answers.adminEmail !== undefined) {
    const email = emailSchema.safeParse(answers.adminEmail);
    if (!email.success) problems.adminEmail = `operator e-mail ${email.error.issues[0]?.message}`;
  }
  if (answers.adminPassword !== undefined) {
    const problem = passwordProblem(answers.adminPassword);
    if (problem) problems.adminPassword = `operator password ${problem}`;
  }
  return problems;
}

function isLocalAddress(ip: string): boolean {
  const wanted = ipaddr.process(ip).toString();
  return Object.values(networkInterfaces())
    .flat()
    .some(
      (entry) =>
        entry &&
        ipaddr.isValid(entry.address) &&
        ipaddr.process(entry.address).toString() === wanted,
    );
}

/** svc.json as it is now (empty when there is none); a file that is not JSON stops setup. */
function readSetupFile(path: string): Record<string, unknown> {
  if (!existsSync(path)) return {};
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, "utf8"));
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {}
  throw new ConfigError(
    `config file ${path}: not a JSON object; fix or remove it, then run setup again`,
  );
}

/** The settings setup manages, as svc.json in `dataDir` holds them now (the wizard's defaults). */
export function currentSetup(dataDir: string): { baseUrl?: string; sourceIp?: string } {
  const values = readSetupFile(join(dataDir, configFileName));
  return {
    ...(typeof values.baseUrl === "string" ? { baseUrl: values.baseUrl } : {}),
    ...(typeof values.deliverySourceIp === "string" ? { sourceIp: values.deliverySourceIp } : {}),
  };
}

function writeConfigFile(path: string, values: Record<string, unknown>): void {
  const merged = { ...readSetupFile(path), ...values };
  for (const [key, value] of Object.entries(merged)) if (value === undefined) delete merged[key];
  const temporary = `${path}.tmp-${process.pid}`;
  // 0600: the file may hold an SMTP URL with a password.
  writeFileSync(temporary, `${JSON.stringify(merged, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, path);
}

async function firstOperatorEmail(db: Db): Promise<string> {
  const { users } = db.t;
  const row = await first(
    db
      .select({ email: users.email })
      .from(users)
      .where(eq(users.isOperator, true))
      .orderBy(asc(users.createdAt), asc(users.id))
      .limit(1),
  );
  return row?.email ?? "";
}

export async function applySetup(
  answers: SetupAnswers,
  options: {
    env: Record<string, string | undefined>;
    cwd: string;
    clock?: Clock;
    open: OpenSetupInstance;
  },
): Promise<SetupResult> {
  const problems = Object.values(checkSetupAnswers(answers));
  if (problems.length > 0) throw new ConfigError(problems.join("; "));
  const dataDir = resolve(options.cwd, answers.dataDir);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const base = loadConfig({ env: options.env, cwd: options.cwd, flags: { dataDir } });
  const configFile = join(base.dataDir, configFileName);
  const before = readSetupFile(configFile);
  const wanted: Partial<Record<SettingChange["key"], string | undefined>> = {};
  if (answers.baseUrl !== undefined) wanted.baseUrl = answers.baseUrl;
  if (answers.sourceIp !== undefined) wanted.deliverySourceIp = answers.sourceIp ?? undefined;
  const changed: SettingChange[] = [];
  for (const [key, to] of Object.entries(wanted) as [SettingChange["key"], string | undefined][]) {
    const from = typeof before[key] === "string" ? (before[key] as string) : null;
    if (from !== (to ?? null)) changed.push({ key, from, to: to ?? null });
  }
  writeConfigFile(configFile, wanted);
  // Read back through the normal loader, so a value the server would refuse is caught now.
  const config = loadConfig({ env: options.env, cwd: options.cwd, flags: { dataDir } });
  const services = await options.open(config, {
    env: options.env,
    log: silentLogger,
    clock: options.clock,
  });
  try {
    const email = emailSchema.parse(
      answers.adminEmail ?? ((await firstOperatorEmail(services.db)) || defaultOperatorEmail),
    );
    const existing = await findUserByEmail(services.db, email);
    const notes: string[] = [];
    let operator: SetupResult["operator"];
    if (existing) {
      if (!existing.isOperator) {
        throw new ApiError(
          "conflict",
          `${email} belongs to a customer account, not an operator; choose another e-mail`,
        );
      }
      if (answers.adminPassword !== undefined)
        await setUserPassword(services.db, existing.id, answers.adminPassword);
      operator = { email, created: false };
    } else {
      const input = {
        email,
        ...(answers.adminPassword !== undefined ? { password: answers.adminPassword } : {}),
      };
      // Setup makes the first operator only: run again (with another e-mail, or the default
      // one) it never adds a second. More operators: `svc accounts create --operator`.
      const created = await ensureFirstOperator(services.db, services.clock, input);
      if (created) {
        operator = {
          email,
          created: true,
          ...(created.oneTimePassword ? { oneTimePassword: created.oneTimePassword } : {}),
        };
      } else {
        const current = await firstOperatorEmail(services.db);
        operator = { email: current, created: false };
        notes.push(
          `An operator already exists (${current}); setup creates only the first one, so ${email} was not added. Add another with: svc accounts create --email ${email} --operator`,
        );
      }
    }
    if (answers.sourceIp && !isLocalAddress(answers.sourceIp)) {
      notes.push(
        `${answers.sourceIp} is not an address of this host: route webhook egress through it (NAT or proxy) so receivers see that address.`,
      );
    }
    if (!config.deliverySourceIp)
      notes.push(
        "No delivery source IP set: receivers behind an allowlist will not know what to allow.",
      );
    return {
      configFile,
      masterKey:
        services.masterKey.source === "env" ? "SVC_MASTER_KEY" : masterKeyPath(config.dataDir),
      database: services.database.location,
      baseUrl: config.baseUrl,
      ...(config.deliverySourceIp ? { deliverySourceIp: config.deliverySourceIp } : {}),
      operator,
      changed,
      listenUrl: `${config.tlsCertFile ? "https" : "http"}://${config.host.includes(":") ? `[${config.host}]` : config.host}:${config.port}`,
      notes,
    };
  } finally {
    await services.database.close();
  }
}
