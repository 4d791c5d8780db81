// Configuration: one zod schema per key; defaults < config file < SVC_* environment < flags.
// A bad value stops start-up with one line naming where it came from and what is wrong.
import { existsSync, readFileSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { Cron } from "croner";
import ipaddr from "ipaddr.js";
import { z } from "zod";
import { databaseUrlProblem, redactDatabaseUrl } from "../db/database-url.ts";
import { logLevels } from "../log/log.ts";
import { readRunningServer, runningServerFileName } from "./running-server.ts";

const booleanWords: Record<string, boolean> = {
  true: true,
  false: false,
  "1": true,
  "0": false,
  yes: true,
  no: false,
};
const booleanText = z.preprocess(
  (value) => (typeof value === "string" && value in booleanWords ? booleanWords[value] : value),
  z.boolean({ error: "must be true or false" }),
);

const integerText = (min: number, max: number) =>
  z.preprocess(
    (value) => (typeof value === "string" && /^-?\d+$/.test(value.trim()) ? Number(value) : value),
    z
      .number({ error: "must be a whole number" })
      .int("must be a whole number")
      .min(min, `must be at least ${min}`)
      .max(max, `must be at most ${max}`),
  );

const httpUrl = z
  .string()
  .trim()
  .refine(
    (value) => URL.canParse(value),
    "must be an absolute URL such as https://bank-api.example.com",
  )
  .transform((value) => new URL(value))
  .refine((url) => url.protocol === "http:" || url.protocol === "https:", "must use http or https")
  .refine((url) => !url.username && !url.password, "must not contain credentials")
  .refine((url) => !url.search && !url.hash, "must not have a query or fragment")
  // One canonical spelling without a trailing slash, so `${baseUrl}/v1` is always right.
  .transform((url) => url.toString().replace(/\/+$/, ""));

/**
 * Where owners update payment details: any http(s) page of the operator's billing
 * system, query included (billing links often carry one), but never credentials in the URL.
 */
const billingUrl = z
  .string()
  .trim()
  .refine(
    (value) => URL.canParse(value),
    "must be an absolute URL such as https://billing.example.com",
  )
  .transform((value) => new URL(value))
  .refine((url) => url.protocol === "http:" || url.protocol === "https:", "must use http or https")
  .refine((url) => !url.username && !url.password, "must not contain credentials")
  .transform((url) => url.toString());

const ipAddressText = z
  .string()
  .trim()
  .refine((value) => ipaddr.isValid(value), "must be an IPv4 or IPv6 address")
  .transform((value) => ipaddr.process(value).toString());

/** One address as a range of its own (/32 or /128), or a CIDR range; undefined when neither. */
export function parseAddressRange(text: string): [ipaddr.IPv4 | ipaddr.IPv6, number] | undefined {
  const value = text.trim();
  try {
    if (value.includes("/")) {
      return ipaddr.parseCIDR(value);
    }
    if (!ipaddr.isValid(value)) return undefined;
    const address = ipaddr.process(value);
    return [address, address.kind() === "ipv4" ? 32 : 128];
  } catch {
    return undefined;
  }
}

/**
 * IP addresses and CIDR ranges: a list separated by commas or spaces in env and flags, a list or
 * an array in the config file. Kept as normalised CIDR text.
 */
const addressRangesText = z
  .preprocess(
    (value) => (typeof value === "string" ? value.split(/[\s,]+/).filter(Boolean) : value),
    z.array(z.string({ error: "must be a list of IP addresses or CIDR ranges" }), {
      error: "must be a list of IP addresses or CIDR ranges",
    }),
  )
  .transform((entries, ctx) => {
    const ranges: string[] = [];
    for (const entry of entries) {
      const range = parseAddressRange(entry);
      if (!range) {
        ctx.addIssue({
          code: "custom",
          message: `"${entry}" is not an IP address or a CIDR range such as 10.0.0.0/8`,
        });
        return z.NEVER;
      }
      ranges.push(`${range[0].toString()}/${range[1]}`);
    }
    return ranges;
  });

const cronText = z
  .string()
  .trim()
  .refine((value) => {
    try {
      new Cron(value, { paused: true }).stop();
      return true;
    } catch {
      return false;
    }
  }, "must be a cron pattern such as */15 * * * *");

const smtpUrl = z
  .string()
  .trim()
  .refine(
    (value) => URL.canParse(value),
    "must be a URL such as smtp://user:pass@mail.example.com:587",
  )
  .refine(
    (value) => ["smtp:", "smtps:"].includes(new URL(value).protocol),
    "must use smtp:// or smtps://",
  );

const pathText = z.string().trim().min(1, "must not be empty");

const databaseUrlText = z
  .string()
  .trim()
  .superRefine((value, ctx) => {
    const problem = databaseUrlProblem(value);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });

/**
 * Every configuration key: its schema (accepting the text form used by env and flags), what it
 * is for (--help), env name, flag.
 */
const keySpecs = {
  baseUrl: {
    schema: httpUrl,
    help: "public URL of this instance (behind a proxy, the proxy's)",
    env: "SVC_BASE_URL",
    flag: "base-url",
  },
  host: {
    schema: z.string().trim().min(1, "must not be empty"),
    help: "address to listen on (0.0.0.0 for every interface)",
    env: "SVC_HOST",
    flag: "host",
  },
  port: { schema: integerText(0, 65535), help: "port to listen on", env: "SVC_PORT", flag: "port" },
  workers: {
    schema: z.preprocess(
      (value) => (value === "auto" ? navigator.hardwareConcurrency : value),
      integerText(1, 256),
    ),
    help: "serving processes sharing the port (auto = one per core); a supervisor restarts any that dies",
    env: "SVC_WORKERS",
    flag: "workers",
  },
  dataDir: {
    schema: pathText,
    help: "directory of the database, master key and svc.json",
    env: "SVC_DATA_DIR",
    flag: "data-dir",
  },
  databaseUrl: {
    schema: databaseUrlText,
    help: "PostgreSQL URL, postgres://user:pass@host:5432/db?sslmode=verify-full (unset: SQLite in the data dir)",
    env: "SVC_DATABASE_URL",
    flag: "database-url",
  },
  databasePoolSize: {
    schema: integerText(1, 1000),
    help: "PostgreSQL connections per process at most",
    env: "SVC_DATABASE_POOL_SIZE",
    flag: "database-pool-size",
  },
  tlsCertFile: {
    schema: pathText,
    help: "PEM certificate chain, to serve HTTPS itself (with --tls-key-file)",
    env: "SVC_TLS_CERT_FILE",
    flag: "tls-cert-file",
  },
  tlsKeyFile: {
    schema: pathText,
    help: "PEM private key for --tls-cert-file",
    env: "SVC_TLS_KEY_FILE",
    flag: "tls-key-file",
  },
  deliverySourceIp: {
    schema: ipAddressText,
    help: "the one address webhooks are sent from",
    env: "SVC_DELIVERY_SOURCE_IP",
    flag: "source-ip",
  },
  deliveryCaFile: {
    schema: pathText,
    help: "extra PEM CA certificates trusted for webhook deliveries",
    env: "SVC_DELIVERY_CA_FILE",
    flag: "delivery-ca-file",
  },
  providerCaFile: {
    schema: pathText,
    help: "extra PEM CA certificates trusted for bank-provider calls",
    env: "SVC_PROVIDER_CA_FILE",
    flag: "provider-ca-file",
  },
  enableBankingApplicationId: {
    schema: z.string().trim().min(1, "must not be empty").max(200),
    help: "Enable Banking application id (the JWT kid)",
    env: "SVC_ENABLE_BANKING_APPLICATION_ID",
    flag: "enable-banking-application-id",
  },
  enableBankingKeyFile: {
    schema: pathText,
    help: "Enable Banking application private key (RSA, PEM)",
    env: "SVC_ENABLE_BANKING_KEY_FILE",
    flag: "enable-banking-key-file",
  },
  enableBankingApiUrl: {
    schema: httpUrl,
    help: "Enable Banking API base URL",
    env: "SVC_ENABLE_BANKING_API_URL",
    flag: "enable-banking-api-url",
  },
  unsafeAllowPrivateTargets: {
    schema: booleanText,
    help: "let deliveries reach loopback/private addresses (tests only)",
    env: "SVC_UNSAFE_ALLOW_PRIVATE_TARGETS",
    flag: "unsafe-allow-private-targets",
  },
  smtpUrl: {
    schema: smtpUrl,
    help: "SMTP server for e-mail, smtp(s)://user:pass@host:port",
    env: "SVC_SMTP_URL",
    flag: "smtp-url",
  },
  mailFrom: {
    schema: z.string().trim().pipe(z.email("must be an e-mail address")),
    help: "sender address of e-mail",
    env: "SVC_MAIL_FROM",
    flag: "mail-from",
  },
  billingUrl: {
    schema: billingUrl,
    help: "page where account owners update payment details (shown in the portal)",
    env: "SVC_BILLING_URL",
    flag: "billing-url",
  },
  syncSchedule: {
    schema: cronText,
    help: "cron pattern for syncing bank connections",
    env: "SVC_SYNC_SCHEDULE",
    flag: "sync-schedule",
  },
  retentionDays: {
    schema: integerText(1, 3650),
    help: "days events and delivery history are kept",
    env: "SVC_RETENTION_DAYS",
    flag: "retention-days",
  },
  apiRateLimitPerMinute: {
    schema: integerText(0, 1_000_000),
    help: "read-API requests per service account per minute, all its keys together (0 = off)",
    env: "SVC_API_RATE_LIMIT_PER_MINUTE",
    flag: "api-rate-limit",
  },
  deliveryConcurrency: {
    schema: integerText(1, 1024),
    help: "webhook deliveries in flight at once",
    env: "SVC_DELIVERY_CONCURRENCY",
    flag: "delivery-concurrency",
  },
  endpointConcurrency: {
    schema: integerText(1, 256),
    help: "deliveries in flight per endpoint",
    env: "SVC_ENDPOINT_CONCURRENCY",
    flag: "endpoint-concurrency",
  },
  metricsTokenFile: {
    schema: pathText,
    help: "file with the bearer token for /metrics (unset: no /metrics)",
    env: "SVC_METRICS_TOKEN_FILE",
    flag: "metrics-token-file",
  },
  operatorTokenFile: {
    schema: pathText,
    help: "file with the bearer token for the /operator API (unset: none)",
    env: "SVC_OPERATOR_TOKEN_FILE",
    flag: "operator-token-file",
  },
  logLevel: {
    schema: z.enum(logLevels, { error: `must be one of ${logLevels.join(", ")}` }),
    help: "debug, info, warn or error",
    env: "SVC_LOG_LEVEL",
    flag: "log-level",
  },
  trustedProxies: {
    schema: addressRangesText,
    help: "reverse proxies whose X-Forwarded-For is believed (addresses or CIDR ranges)",
    env: "SVC_TRUSTED_PROXIES",
    flag: "trusted-proxies",
  },
} as const;

export type ConfigKey = keyof typeof keySpecs;
const configKeys = Object.keys(keySpecs) as ConfigKey[];

export interface Config {
  /** Public URL of this instance without a trailing slash; the API lives at `${baseUrl}/v1`. */
  baseUrl: string;
  host: string;
  port: number;
  /** Processes `svc serve` runs, sharing the listening port (`reusePort`). */
  workers: number;
  /** Absolute path of the data directory (database, master key, config file). */
  dataDir: string;
  /** PostgreSQL URL; unset, the embedded SQLite database in the data dir is used. Secret. */
  databaseUrl?: string;
  /** Connections of the PostgreSQL pool per process. */
  databasePoolSize: number;
  tlsCertFile?: string;
  tlsKeyFile?: string;
  /** The one address deliveries come from (spec 4); bound when it is an address of this host. */
  deliverySourceIp?: string;
  /** Extra CA certificates (PEM) trusted for deliveries, in addition to the system roots. */
  deliveryCaFile?: string;
  /** Extra CA certificates (PEM) trusted for bank-provider calls, besides the system roots. */
  providerCaFile?: string;
  /** Enable Banking application id; with the key file it turns the provider on. */
  enableBankingApplicationId?: string;
  /** The Enable Banking application's RSA private key (PEM). Secret. */
  enableBankingKeyFile?: string;
  enableBankingApiUrl: string;
  /** Development and test only: lets deliveries reach loopback/private addresses on any port. */
  unsafeAllowPrivateTargets: boolean;
  smtpUrl?: string;
  mailFrom: string;
  /** The operator's page for updating payment details; the portal links to it. */
  billingUrl?: string;
  syncSchedule: string;
  retentionDays: number;
  /** Read-API requests per service account per minute (all its keys); 0 turns it off. */
  apiRateLimitPerMinute: number;
  deliveryConcurrency: number;
  endpointConcurrency: number;
  /** File holding the bearer token /metrics requires; unset, /metrics does not exist. */
  metricsTokenFile?: string;
  /** File holding the bearer token of the operator HTTP API (/operator); unset, it does not exist. */
  operatorTokenFile?: string;
  logLevel: (typeof logLevels)[number];
  /**
   * Reverse proxies (addresses or CIDR ranges) whose X-Forwarded-For is believed, to find the
   * client's address behind them; empty: the TCP peer is the client.
   */
  trustedProxies: string[];
  /** Path of the config file that was read, if any (for `svc setup` and diagnostics). */
  configFile?: string;
  /**
   * Where each value that is not a default came from, named as the operator wrote it (`--port`,
   * `SVC_PORT`, `/var/lib/svc/svc.json: port`), for warnings about risky settings.
   */
  origins?: Partial<Record<ConfigKey, string>>;
}

/** Keys whose value is a boolean: in svc.json only JSON's true and false are taken. */
const booleanKeys: ReadonlySet<ConfigKey> = new Set(["unsafeAllowPrivateTargets"]);

const defaults = {
  host: "127.0.0.1",
  port: 8080,
  workers: 1,
  dataDir: "./data",
  databasePoolSize: 10,
  unsafeAllowPrivateTargets: false,
  enableBankingApiUrl: "https://api.enablebanking.com",
  mailFrom: "svc@localhost.localdomain",
  syncSchedule: "*/15 * * * *",
  retentionDays: 30,
  apiRateLimitPerMinute: 600,
  deliveryConcurrency: 64,
  endpointConcurrency: 8,
  logLevel: "info",
  trustedProxies: [] as string[],
} satisfies Partial<Record<ConfigKey, unknown>>;

export const configFileName = "svc.json";

export class ConfigError extends Error {
  override name = "ConfigError";
}

export interface ConfigSources {
  /** Values from command-line flags (already split by the CLI), by config key. */
  flags?: Partial<Record<ConfigKey, string | number | boolean>>;
  /** An explicit config file (`--config` / `SVC_CONFIG`); otherwise `<dataDir>/svc.json` if present. */
  configFile?: string;
  env?: Record<string, string | undefined>;
  cwd?: string;
  /**
   * Take the settings a running `svc serve` on this data dir got as flags or environment
   * variables (between the file and this process's environment). Every command but serve does.
   */
  followRunningServer?: boolean;
}

interface RawValue {
  value: unknown;
  /** Where it came from, named the way the operator wrote it. */
  origin: string;
}

function readConfigFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigError(
      `config file ${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? error})`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`config file ${path}: not valid JSON (${(error as Error).message})`);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new ConfigError(`config file ${path}: must hold a JSON object`);
  }
  for (const key of Object.keys(parsed)) {
    if (!(key in keySpecs)) {
      throw new ConfigError(
        `config file ${path}: unknown key "${key}" (known keys: ${configKeys.join(", ")})`,
      );
    }
  }
  return parsed as Record<string, unknown>;
}

/** A value for an error message: shortened, and a database URL without its password. */
function describe(key: ConfigKey, value: unknown): string {
  if (key === "databaseUrl") return JSON.stringify(redactDatabaseUrl(String(value)));
  const text = typeof value === "string" ? JSON.stringify(value) : String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** Loads, layers and validates the configuration, or throws one ConfigError line. */
export function loadConfig(sources: ConfigSources = {}): Config {
  const env = sources.env ?? process.env;
  const cwd = sources.cwd ?? process.cwd();
  const flags = sources.flags ?? {};
  const raw = new Map<ConfigKey, RawValue>();
  const envValue = (key: ConfigKey): RawValue | undefined => {
    const name = keySpecs[key].env;
    const value = env[name];
    return value === undefined || value === "" ? undefined : { value, origin: `${name}` };
  };
  const flagValue = (key: ConfigKey): RawValue | undefined => {
    const value = flags[key];
    return value === undefined ? undefined : { value, origin: `--${keySpecs[key].flag}` };
  };

  // The data dir decides where the default config file lives, so it is settled first.
  const explicitFile = sources.configFile ?? (env.SVC_CONFIG || undefined);
  const explicitFileValues = explicitFile ? readConfigFile(resolve(cwd, explicitFile)) : undefined;
  const dataDirRaw = flagValue("dataDir") ??
    envValue("dataDir") ??
    (explicitFileValues?.dataDir !== undefined
      ? { value: explicitFileValues.dataDir, origin: `${explicitFile}: dataDir` }
      : undefined) ?? { value: defaults.dataDir, origin: "default dataDir" };
  const dataDirParsed = keySpecs.dataDir.schema.safeParse(dataDirRaw.value);
  if (!dataDirParsed.success) {
    throw new ConfigError(
      `${dataDirRaw.origin}: ${dataDirParsed.error.issues[0]?.message ?? "invalid"}`,
    );
  }
  const dataDir = resolve(cwd, dataDirParsed.data);

  let configFile: string | undefined;
  let fileValues: Record<string, unknown> = {};
  if (explicitFile) {
    configFile = resolve(cwd, explicitFile);
    fileValues = explicitFileValues ?? {};
  } else if (existsSync(join(dataDir, configFileName))) {
    configFile = join(dataDir, configFileName);
    fileValues = readConfigFile(configFile);
    if ("dataDir" in fileValues) {
      throw new ConfigError(
        `config file ${configFile}: "dataDir" cannot be set inside the data dir; use --data-dir or SVC_DATA_DIR`,
      );
    }
  }

  const running = sources.followRunningServer ? readRunningServer(dataDir) : undefined;
  for (const key of configKeys) {
    const fromFile =
      key in fileValues ? { value: fileValues[key], origin: `${configFile}: ${key}` } : undefined;
    const fromRunning =
      running && key !== "dataDir" && key in running.settings
        ? {
            value: running.settings[key],
            origin: `${join(dataDir, runningServerFileName)} (svc serve, pid ${running.pid}, ${running.origins[key] ?? key}): ${key}`,
          }
        : undefined;
    const chosen = flagValue(key) ?? envValue(key) ?? fromRunning ?? fromFile;
    if (chosen) raw.set(key, chosen);
  }

  const values: Record<string, unknown> = { dataDir };
  for (const key of configKeys) {
    if (key === "dataDir") continue;
    const entry = raw.get(key);
    if (!entry) {
      if (key in defaults) values[key] = defaults[key as keyof typeof defaults];
      continue;
    }
    // Text such as "yes" is how environment variables and flags spell a boolean; in the JSON
    // file a string where a boolean belongs is a mistake (a quoted "false" would read as on).
    if (booleanKeys.has(key) && entry.origin.startsWith(`${configFile}: `)) {
      if (typeof entry.value !== "boolean") {
        throw new ConfigError(
          `${entry.origin}=${describe(key, entry.value)}: must be a JSON boolean, true or false (without quotes)`,
        );
      }
    }
    const parsed = keySpecs[key].schema.safeParse(entry.value);
    if (!parsed.success) {
      const reason = parsed.error.issues[0]?.message ?? "is invalid";
      throw new ConfigError(`${entry.origin}=${describe(key, entry.value)}: ${reason}`);
    }
    values[key] = parsed.data;
  }
  values.baseUrl ??= `http://localhost:${values.port}`;

  const config = values as unknown as Config;
  const fileKeys = [
    "tlsCertFile",
    "tlsKeyFile",
    "deliveryCaFile",
    "providerCaFile",
    "enableBankingKeyFile",
    "metricsTokenFile",
    "operatorTokenFile",
  ] as const;
  for (const key of fileKeys) {
    const path = config[key];
    if (path !== undefined) {
      config[key] = isAbsolute(path) ? path : resolve(cwd, path);
      if (!existsSync(config[key] as string)) {
        throw new ConfigError(`${raw.get(key)?.origin ?? key}: file ${config[key]} does not exist`);
      }
    }
  }
  if ((config.tlsCertFile === undefined) !== (config.tlsKeyFile === undefined)) {
    throw new ConfigError("tlsCertFile and tlsKeyFile: set both to serve HTTPS, or neither");
  }
  if (configFile) config.configFile = configFile;
  config.origins = Object.fromEntries([...raw].map(([key, entry]) => [key, entry.origin]));
  return config;
}

/** Where a key's value came from, in words: "flag --port", "environment SVC_PORT", "config file F: port". */
export function configOriginLabel(config: Config, key: ConfigKey): string {
  const origin = config.origins?.[key];
  if (origin === undefined) return "default";
  if (origin.startsWith("--")) return `flag ${origin}`;
  if (origin === keySpecs[key].env) return `environment ${origin}`;
  if (origin.includes(runningServerFileName)) return `running server ${origin}`;
  return `config file ${origin}`;
}

function hasPassword(url: string | undefined): boolean {
  return url !== undefined && URL.canParse(url) && new URL(url).password !== "";
}

/**
 * The values this process got from its flags and environment (not the file, not defaults): what
 * `svc serve` shares with the other commands through the running-server file.
 */
export function processGivenSettings(config: Config): {
  settings: Record<string, unknown>;
  origins: Record<string, string>;
} {
  const settings: Record<string, unknown> = {};
  const origins: Record<string, string> = {};
  for (const key of configKeys) {
    const origin = config.origins?.[key];
    if (key === "dataDir" || origin === undefined) continue;
    if (origin !== `--${keySpecs[key].flag}` && origin !== keySpecs[key].env) continue;
    // A password given in the environment stays out of files (security.md): such a URL is not
    // shared, and the CLI needs it in its own environment too.
    if ((key === "databaseUrl" || key === "smtpUrl") && hasPassword(config[key])) continue;
    settings[key] = config[key];
    origins[key] = origin;
  }
  return { settings, origins };
}

/** Environment variable and flag names for each key, for --help and the docs. */
export function describeConfigKeys(): {
  key: ConfigKey;
  help: string;
  env: string;
  flag: string;
  default?: unknown;
}[] {
  return configKeys.map((key) => ({
    key,
    help: keySpecs[key].help,
    env: keySpecs[key].env,
    flag: `--${keySpecs[key].flag}`,
    default:
      key === "baseUrl"
        ? "http://localhost:<port>"
        : key === "trustedProxies"
          ? "none"
          : defaults[key as keyof typeof defaults],
  }));
}

/** Validates one value for a key (used by the setup wizard before it writes the file). */
export function validateConfigValue(key: ConfigKey, value: unknown): string | undefined {
  const parsed = keySpecs[key].schema.safeParse(value);
  return parsed.success ? undefined : (parsed.error.issues[0]?.message ?? "is invalid");
}
