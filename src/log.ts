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
const secretFieldPattern =
  /pass(word)?|secret|token|authorization|cookie|master.?key|^key$|^code$/i;

/**
 * Masks API keys (keeps the 12-character display prefix), signing secrets and any other
 * bearer credential in a string.
 */
export function redactSecrets(text: string): string {
  // Most strings hold none of the three markers: skip the replacements (hot path: access log).
  if (!text.includes("svk_") && !text.includes("whsec_") && !/bearer/i.test(text)) return text;
  return text
    .replace(apiKeyPattern, "$1_[redacted]")
    .replace(signingSecretPattern, "whsec_[redacted]")
    .replace(bearerPattern, "$1[redacted]");
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
  for (const [key, item] of Object.entries(value)) {
    out[key] = secretFieldPattern.test(key) ? "[redacted]" : sanitise(item, depth + 1);
  }
  return out;
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
  const emit = (level: LogLevel, message: string, fields?: LogFields) => {
    if (logLevels.indexOf(level) < threshold) return;
    const record = sanitise({ ...bound, ...fields }) as LogFields;
    write(
      JSON.stringify({ time: now().toISOString(), level, msg: redactSecrets(message), ...record }),
    );
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
