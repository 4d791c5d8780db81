import type { LogFields, Logger } from "../../src/log/log.ts";

/**
 * A logger that keeps what callers pass, before any redaction, at every level: tests assert
 * that no secret is ever handed to the logger at all.
 */
export function rawRecordingLogger(lines: string[] = []): Logger & { lines: string[] } {
  const make = (bound: LogFields): Logger => {
    const record = (level: string) => (message: string, fields?: LogFields) => {
      lines.push(JSON.stringify({ level, message, ...bound, ...fields }, errorsAsText));
    };
    return {
      debug: record("debug"),
      info: record("info"),
      warn: record("warn"),
      error: record("error"),
      child: (fields) => make({ ...bound, ...fields }),
      prepare: (level, message, fixed) => (varying) =>
        record(level)(message, { ...fixed, ...varying }),
    };
  };
  return Object.assign(make({}), { lines });
}

function errorsAsText(_key: string, value: unknown): unknown {
  return value instanceof Error ? `${value.name}: ${value.message}\n${value.stack}` : value;
}
