// Structured JSON logs, one object per line. Secrets never reach a log: fields whose name
// says they hold one are dropped, and API keys or signing secrets that slip into any string
// are masked to their display prefix.
import { writeStderrSync } from "./sink.ts";

export const logLevels = ["debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof logLevels)[number];

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
  /**
   * For a line written often with mostly the same fields (the access log): `fixed` is scrubbed
   * and serialised once, and each call adds the time and the `varying` fields (which must not
   * repeat a fixed one). The line is what the level's method writes for the merged fields.
   */
  prepare(level: LogLevel, message: string, fixed: LogFields): (varying: LogFields) => void;
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

/**
 * Field names are few and repeat on every line: what is derived from one is computed once
 * (at most 1024 names are remembered; a pure function, so nothing to reset).
 */
function perFieldName<T>(derive: (name: string) => T): (name: string) => T {
  const memo = new Map<string, T>();
  return (name) => {
    let value = memo.get(name);
    if (value === undefined) {
      value = derive(name);
      if (memo.size < 1024) memo.set(name, value);
    }
    return value;
  };
}

const isSecretField = perFieldName((name) => secretFieldPattern.test(name));
/** A field name as a JSON string, for prepared lines. */
const fieldNameJson = perFieldName((name) => JSON.stringify(name));

/** Characters a string may hold to be its own JSON between quotes, with nothing to mask. */
const plainText = /^[A-Za-z0-9_.:-]*$/;

/**
 * A prepared line's varying field as JSON, as JSON.stringify writes it after scrubbing (undefined
 * when it has no JSON value). The values it usually holds (a finite duration, a request id) are
 * written without either step: scrubbing them changes nothing.
 */
function varyingJson(name: string, value: unknown): string | undefined {
  if (!isSecretField(name)) {
    if (typeof value === "number" && Number.isFinite(value)) return `${value}`;
    if (typeof value === "string" && plainText.test(value) && !secretMarkerPattern.test(value)) {
      return `"${value}"`;
    }
  }
  // As JSON.stringify does for an object: a field without a JSON value is left out (undefined).
  return JSON.stringify(sanitiseField(name, value));
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
  /** Called after a warning or an error, for writers that batch lines (log/sink.ts). */
  flush?: () => void;
  now?: () => Date;
}

export function createLogger(options: LoggerOptions = {}, bound: LogFields = {}): Logger {
  const threshold = logLevels.indexOf(options.level ?? "info");
  // Unbatched but synchronous, so nothing is lost at exit (log/sink.ts batches for the server).
  const write = options.write ?? ((line: string) => writeStderrSync(`${line}\n`));
  const nowMs = options.now ? () => (options.now as () => Date)().getTime() : Date.now;
  // One timestamp string per millisecond: a busy server logs many lines in the same one.
  let stampedMs = Number.NaN;
  let stamp = "";
  const timestamp = () => {
    const ms = nowMs();
    if (ms !== stampedMs) {
      stampedMs = ms;
      stamp = new Date(ms).toISOString();
    }
    return stamp;
  };
  const isOn = (level: LogLevel) => logLevels.indexOf(level) >= threshold;
  // A logger's bound fields never change: scrubbed once, not on every line.
  const boundFields = sanitise(bound) as LogFields;
  const written = (level: LogLevel, line: string) => {
    write(line);
    if (level === "warn" || level === "error") options.flush?.();
  };
  const emit = (level: LogLevel, message: string, fields?: LogFields) => {
    if (!isOn(level)) return;
    // Built in one pass; later fields override earlier.
    const record: LogFields = {
      time: timestamp(),
      level,
      msg: redactSecrets(message),
      ...boundFields,
    };
    if (fields) for (const key in fields) record[key] = sanitiseField(key, fields[key]);
    written(level, JSON.stringify(record));
  };
  const prepare = (level: LogLevel, message: string, fixed: LogFields) => {
    if (!isOn(level)) return () => {};
    const head: LogFields = { level, msg: redactSecrets(message), ...boundFields };
    for (const key in fixed) head[key] = sanitiseField(key, fixed[key]);
    // The fixed fields' JSON without its braces, cut once rather than per line.
    const headJson = JSON.stringify(head).slice(1, -1);
    return (varying: LogFields) => {
      let tail = "";
      for (const key in varying) {
        const value = varyingJson(key, varying[key]);
        if (value !== undefined) tail += `,${fieldNameJson(key)}:${value}`;
      }
      written(level, `{"time":"${timestamp()}",${headJson}${tail}}`);
    };
  };
  return {
    debug: (message, fields) => emit("debug", message, fields),
    info: (message, fields) => emit("info", message, fields),
    warn: (message, fields) => emit("warn", message, fields),
    error: (message, fields) => emit("error", message, fields),
    child: (fields) => createLogger(options, { ...bound, ...fields }),
    prepare,
  };
}

/** A logger that drops everything (for tests and quiet CLI commands). */
export const silentLogger: Logger = createLogger({ write: () => {} });
