import { describe, expect, test } from "bun:test";
import { createLogger, redactSecrets } from "../src/log/log.ts";

const apiKey = `svk_AbCd_123_${"x".repeat(43)}`;

describe("logs never carry a secret", () => {
  test("an API key in any string is cut to its 12-character display prefix", () => {
    expect(redactSecrets(`Bearer ${apiKey}`)).toBe("Bearer svk_AbCd_123_[redacted]");
  });

  test("any other bearer credential in a string (a malformed key, the metrics token) is masked whole", () => {
    expect(redactSecrets("Authorization: Bearer svk_truncated")).toBe(
      "Authorization: Bearer [redacted]",
    );
    expect(redactSecrets('{"h":"bearer 0123456789abcdef0123456789abcdef"}')).toBe(
      '{"h":"bearer [redacted]"}',
    );
  });

  test("a signing secret in any string is masked", () => {
    expect(redactSecrets("secret whsec_abc-DEF_123 here")).toBe("secret whsec_[redacted] here");
  });

  test("fields named like secrets are dropped and nested strings are scrubbed", () => {
    const lines: string[] = [];
    const log = createLogger({ write: (line) => lines.push(line) });
    log.info(`got ${apiKey}`, {
      password: "hunter2hunter2",
      authorization: "Bearer x",
      nested: { note: apiKey },
      code: "ABCD2345",
    });
    const record = JSON.parse(lines[0] ?? "{}");
    expect(record.msg).toBe("got svk_AbCd_123_[redacted]");
    expect(record.password).toBe("[redacted]");
    expect(record.authorization).toBe("[redacted]");
    expect(record.code).toBe("[redacted]");
    expect(record.nested.note).toBe("svk_AbCd_123_[redacted]");
    expect(lines[0]).not.toContain("x".repeat(43));
  });

  test("levels below the threshold are not written", () => {
    const lines: string[] = [];
    const log = createLogger({ level: "warn", write: (line) => lines.push(line) });
    log.info("quiet");
    log.warn("loud");
    expect(lines.map((l) => JSON.parse(l).msg)).toEqual(["loud"]);
  });
});

describe("prepared lines (the access log's fast path)", () => {
  const fixedNow = () => new Date("2026-11-21T12:00:00.000Z");

  test("write exactly the line the level's method writes for the same fields", () => {
    const lines: string[] = [];
    const log = createLogger({ write: (line) => lines.push(line), now: fixedNow }).child({
      service: "api",
    });
    const fixed = { method: "GET", route: "/v1/accounts", status: 200 };
    const varying = { durationMs: 0.4, requestId: "req_abc" };
    log.prepare("info", "request", fixed)(varying);
    log.info("request", { ...fixed, ...varying });
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe(lines[1] as string);
    expect(JSON.parse(lines[0] as string)).toEqual({
      time: "2026-11-21T12:00:00.000Z",
      level: "info",
      msg: "request",
      service: "api",
      ...fixed,
      ...varying,
    });
  });

  test("scrub secrets in fixed and varying fields, and leave out fields without a JSON value", () => {
    const lines: string[] = [];
    const log = createLogger({ write: (line) => lines.push(line) });
    log.prepare("info", `m ${apiKey}`, { note: apiKey, token: "t0ken" })({
      other: `Bearer ${apiKey}`,
      absent: undefined,
      quote: 'a "quoted" \\ text',
    });
    const record = JSON.parse(lines[0] ?? "{}");
    expect(record.msg).toBe("m svk_AbCd_123_[redacted]");
    expect(record.note).toBe("svk_AbCd_123_[redacted]");
    expect(record.token).toBe("[redacted]");
    expect(record.other).toBe("Bearer svk_AbCd_123_[redacted]");
    expect(record).not.toHaveProperty("absent");
    expect(record.quote).toBe('a "quoted" \\ text');
    expect(lines[0]).not.toContain("x".repeat(43));
  });

  test("varying numbers and ids are written as the level's method writes them, and secrets among them are still scrubbed", () => {
    const lines: string[] = [];
    const log = createLogger({ write: (line) => lines.push(line), now: fixedNow });
    const varying = {
      durationMs: 12.5,
      requestId: "req_0DtLnQvO100007yk",
      presented: apiKey,
      signing: "whsec_abcdefghijklmnop",
      token: "plain-looking",
      secret: 42,
      marker: "whsec_plain",
      notANumber: Number.NaN,
      time2: "12:00:00.5",
    };
    log.prepare("info", "request", { status: 200 })(varying);
    log.info("request", { status: 200, ...varying });
    expect(lines[0]).toBe(lines[1] as string);
    const record = JSON.parse(lines[0] ?? "{}");
    expect(record.durationMs).toBe(12.5);
    expect(record.requestId).toBe("req_0DtLnQvO100007yk");
    expect(record.presented).toBe("svk_AbCd_123_[redacted]");
    expect(record.signing).toBe("whsec_[redacted]");
    expect(record.token).toBe("[redacted]");
    expect(record.secret).toBe("[redacted]");
    expect(record.marker).toBe("whsec_[redacted]");
    expect(record.notANumber).toBeNull();
    expect(lines[0]).not.toContain("abcdefghijklmnop");
  });

  test("write nothing when their level is off, and flush a batching writer after a warning", () => {
    const lines: string[] = [];
    let flushes = 0;
    const log = createLogger({
      level: "warn",
      write: (line) => lines.push(line),
      flush: () => {
        flushes += 1;
      },
    });
    log.prepare("info", "request", {})({ durationMs: 1 });
    expect(lines).toEqual([]);
    log.prepare("warn", "slow", {})({ durationMs: 1 });
    expect(lines).toHaveLength(1);
    expect(flushes).toBe(1);
  });
});
