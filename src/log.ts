// Structured JSON logs, one object per line. Secrets never reach a log: fields whose name
// says they hold one are dropped, and API keys or signing secrets that slip into any string
// are masked to their display prefix.

export const logLevels = ["debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof logLevels)[number];

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

const apiKeyPattern = /(svk_[A-Za-z0-9_-]{8})_[A-Za-z0-9_-]{43}/g;
const signingSecretPattern = /whsec_[A-Za-z0-9_-]+/g;
/** Any other bearer credential (a malformed key, the metrics token): masked whole. */
const bearerPattern = /\b(Bearer\s+)(?!svk_[A-Za-z0-9_-]{8}_\[redacted\])[^\s"',]+/gi;
const secretMarkerPattern = /svk_|whsec_|bearer/i;
const secretFieldPattern =
  /pass(word)?|secret|token|authorization|cookie|master.?key|^key$|^code$/i;

/**
 * Masks API keys (keeps the 12-character display prefix), signing secrets and any other
 * bearer credential in a string.
 */
export function redactSecrets(text: string): string {
  // Most strings hold none of the three markers: skip the replacements (hot path: access log).
  if (!secretMarkerPattern.test(text)) return text;
  return text
    .replace(apiKeyPattern, "$1_[redacted]")
    .replace(signingSecretPattern, "whsec_[redacted]")
    .replace(bearerPattern, "$1[redacted]");
}

/** Field names are few and repeat on every line: each is tested once (at most fieldNameMemo). */
const secretFieldMemo = new Map<string, boolean>();
const fieldNameMemo = 1024;

function isSecretField(name: string): boolean {
  let secret = secretFieldMemo.get(name);
  if (secret === undefined) {
    secret = secretFieldPattern.test(name);
    if (secretFieldMemo.size < fieldNameMemo) secretFieldMemo.set(name, secret);
  }
  return secret;
}

function sanitise(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return redactSecrets(value);
  if (value instanceof Error) {
    return {
      name: value.name,
      message: redactSecrets(value.message),
      stack: value.stack && redactSecrets(value.stack),
    };
  }
  if (value instanceof Date) return value.toISOString();
  if (depth > 5 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((item) => sanitise(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = sanitiseField(key, item, depth + 1);
  return out;
}

function sanitiseField(name: string, value: unknown, depth = 0): unknown {
  return isSecretField(name) ? "[redacted]" : sanitise(value, depth);
}

export interface LoggerOptions {
  level?: LogLevel;
  write?: (line: string) => void;
  now?: () => Date;
}

export function createLogger(options: LoggerOptions = {}, bound: LogFields = {}): Logger {
  const threshold = logLevels.indexOf(options.level ?? "info");
  const write = options.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const now = options.now ?? (() => new Date());
  // One timestamp string per millisecond: a busy server logs many lines in the same one.
  let stampedMs = Number.NaN;
  let stamp = "";
  const emit = (level: LogLevel, message: string, fields?: LogFields) => {
    if (logLevels.indexOf(level) < threshold) return;
    const ms = now().getTime();
    if (ms !== stampedMs) {
      stampedMs = ms;
      stamp = new Date(ms).toISOString();
    }
    // Built in one pass (this runs for every access-log line); later fields override earlier.
    const record: LogFields = { time: stamp, level, msg: redactSecrets(message) };
    for (const key in bound) record[key] = sanitiseField(key, bound[key]);
    if (fields) for (const key in fields) record[key] = sanitiseField(key, fields[key]);
    write(JSON.stringify(record));
  };
  return {
    debug: (message, fields) => emit("debug", message, fields),
    info: (message, fields) => emit("info", message, fields),
    warn: (message, fields) => emit("warn", message, fields),
    error: (message, fields) => emit("error", message, fields),
    child: (fields) => createLogger(options, { ...bound, ...fields }),
  };
}

/** A logger that drops everything (for tests and quiet CLI commands). */
export const silentLogger: Logger = createLogger({ write: () => {} });
